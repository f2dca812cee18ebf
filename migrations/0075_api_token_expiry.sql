-- An API token may expire (Unleash's expiresAt): from then on it authenticates nothing. NULL
-- means never, as for every token made before.
ALTER TABLE api_tokens ADD COLUMN expires_at TIMESTAMPTZ;
