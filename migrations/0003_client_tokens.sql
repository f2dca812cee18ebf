-- Client tokens (for Unleash SDKs): one environment, a list of projects, and access to the
-- client API only. Existing tokens are admin tokens.
ALTER TABLE api_tokens
  ADD COLUMN type TEXT NOT NULL DEFAULT 'admin' CHECK (type IN ('admin', 'client'));
