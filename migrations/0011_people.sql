-- People: users who log in with a password, their sessions, their roles in projects, their
-- personal access tokens, the failed logins that limit guessing, and the user on each event.

-- A user logs in with a username or an email (either, or both). Usernames hold no '@', so a
-- login name is never one user's username and another's email. Compared case-insensitively.
CREATE TABLE users (
  id                  INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username            TEXT CHECK (position('@' in username) = 0),
  email               TEXT CHECK (position('@' in email) > 0),
  name                TEXT,
  root_role           TEXT NOT NULL CHECK (root_role IN ('Admin', 'Editor', 'Viewer')),
  -- scrypt, in the PHC string format ($scrypt$ln=…,r=…,p=…$salt$hash); null: cannot log in.
  password_hash       TEXT,
  created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  seen_at             TIMESTAMPTZ,
  CHECK (username IS NOT NULL OR email IS NOT NULL)
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A role in one project, on top of the user's root role.
CREATE TABLE project_roles (
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  role       TEXT NOT NULL CHECK (role IN ('Member')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, project_id)
);
CREATE INDEX project_roles_project_idx ON project_roles (project_id);

-- Only a SHA-256 of the session id is kept: a copy of the table opens no session.
CREATE TABLE sessions (
  id_hash      TEXT PRIMARY KEY,
  user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- The absolute limit; the idle limit is counted from last_seen_at.
  expires_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id, created_at);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE personal_access_tokens (
  id          INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  description TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  expires_at  TIMESTAMPTZ NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  seen_at     TIMESTAMPTZ,
  UNIQUE (user_id, description)
);

-- Failed logins in the current window, per account name (as typed, known or not) and per
-- source address; keys are SHA-256, so a password typed as a name is not kept readable.
CREATE TABLE login_failures (
  scope             TEXT NOT NULL CHECK (scope IN ('account', 'address')),
  key               TEXT NOT NULL,
  window_started_at TIMESTAMPTZ NOT NULL,
  failures          INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX login_failures_window_idx ON login_failures (window_started_at);

-- The user who made a change (null when an API token did). No foreign key: events outlive
-- users, and user ids are never reused.
ALTER TABLE events ADD COLUMN created_by_user_id INTEGER;
CREATE INDEX events_created_by_idx ON events (created_by, id);
CREATE INDEX events_created_by_user_idx ON events (created_by_user_id, id) WHERE created_by_user_id IS NOT NULL;
