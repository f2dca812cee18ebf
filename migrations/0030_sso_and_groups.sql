-- Single sign-on (OpenID Connect) and groups: the sign-in settings, the logins under way, the
-- sessions single sign-on opened, groups with their members, root role and project roles.

-- Settings by name, as Unleash keeps them: 'unleash.enterprise.auth.oidc' (the OpenID Connect
-- settings, its client secret included: never answered or logged) and 'unleash.auth.simple'
-- (whether password login is off).
CREATE TABLE auth_settings (
  name       TEXT PRIMARY KEY,
  value      JSONB NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A login sent to the identity provider and not yet back. The browser that started it holds a
-- random value in a cookie; only its SHA-256 is kept here. A row is used once (deleted when the
-- browser comes back) and lives ten minutes at most.
CREATE TABLE oidc_logins (
  binding_hash  TEXT PRIMARY KEY,
  state         TEXT NOT NULL,
  nonce         TEXT NOT NULL,
  -- The PKCE verifier, when PKCE is on: it never leaves the server but to the token endpoint.
  code_verifier TEXT,
  -- A path on this server to land on after the login.
  redirect      TEXT NOT NULL,
  -- The source address (SHA-256, as the login limits key it), to bound logins per address.
  address_key   TEXT NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX oidc_logins_expires_idx ON oidc_logins (expires_at);
CREATE INDEX oidc_logins_address_idx ON oidc_logins (address_key, expires_at);

-- The sessions single sign-on opened (a logout may then end the provider's session too).
CREATE TABLE oidc_sessions (
  session_hash TEXT PRIMARY KEY REFERENCES sessions (id_hash) ON DELETE CASCADE,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Groups, in Unleash's shape. mappings_sso: the provider's group names that put a user in the
-- group at login (group syncing). root_role: a root role every member holds (the highest of a
-- user's own and their groups' counts).
CREATE TABLE groups (
  id           INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  description  TEXT,
  mappings_sso TEXT[] NOT NULL DEFAULT '{}',
  root_role    TEXT CHECK (root_role IN ('Admin', 'Editor', 'Viewer')),
  created_by   TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX groups_mappings_sso_idx ON groups USING GIN (mappings_sso);

-- created_by 'SSO': the membership came from group syncing, which alone takes it away again.
CREATE TABLE group_users (
  group_id   INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_by TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_users_user_idx ON group_users (user_id);

-- A group's role in one project: every member holds it there.
CREATE TABLE group_project_roles (
  group_id   INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  role       TEXT NOT NULL CHECK (role IN ('Member')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, project_id)
);
CREATE INDEX group_project_roles_project_idx ON group_project_roles (project_id);
