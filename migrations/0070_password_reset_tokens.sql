-- Password-reset links an Admin hands on (no mail server), and the invitation of a user created
-- without a password: each a random token of 32 bytes, of which only a SHA-256 is kept (a copy
-- of the table opens no account). A user holds at most one live link: a new one replaces the
-- others. A link is used once (deleted when the password is set) and lives 24 hours.
CREATE TABLE password_reset_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- 'reset': /reset-password (an existing user forgot); 'invite': /new-user (created without a password).
  kind       TEXT NOT NULL CHECK (kind IN ('reset', 'invite')),
  created_by TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX password_reset_tokens_user_idx ON password_reset_tokens (user_id);
CREATE INDEX password_reset_tokens_expires_idx ON password_reset_tokens (expires_at);
