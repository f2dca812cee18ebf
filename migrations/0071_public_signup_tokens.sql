-- Public sign-up tokens (Unleash's "invite links"): whoever opens the link may create an
-- account with the token's root role until the token expires or is disabled. The secret is
-- kept as it is, as Unleash keeps it: the link is meant to be handed on, and Admins read it back
-- (Unleash's UI shows and copies it from the list). There is no delete: a token is disabled.
CREATE TABLE signup_tokens (
  secret     TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  role       TEXT NOT NULL DEFAULT 'Viewer' CHECK (role IN ('Admin', 'Editor', 'Viewer')),
  enabled    BOOLEAN NOT NULL DEFAULT true,
  expires_at TIMESTAMPTZ NOT NULL,
  created_by TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The users who signed up with a token.
CREATE TABLE signup_token_users (
  secret     TEXT NOT NULL REFERENCES signup_tokens (secret) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (secret, user_id)
);
CREATE INDEX signup_token_users_user_idx ON signup_token_users (user_id);
