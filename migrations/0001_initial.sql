-- Initial schema. Forward-only: never edit once landed; add a new numbered file instead.

CREATE TABLE projects (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  description TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Environments are global; a project enables some of them.
CREATE TABLE environments (
  name       TEXT PRIMARY KEY,
  type       TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE project_environments (
  project_id       TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_name TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, environment_name)
);

-- Feature names are unique across the whole instance, as in Unleash.
CREATE TABLE features (
  name        TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  description TEXT,
  type        TEXT NOT NULL DEFAULT 'release',
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX features_project_id_idx ON features (project_id, name);

-- revision changes exactly when variants change; it is the ETag of the variants resource.
CREATE TABLE feature_environments (
  feature_name     TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  environment_name TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
  enabled          BOOLEAN NOT NULL DEFAULT false,
  variants         JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(variants) = 'array'),
  revision         INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (feature_name, environment_name)
);

CREATE TABLE feature_lifecycles (
  feature_name     TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  stage            TEXT NOT NULL CHECK (stage IN ('initial', 'completed')),
  status           TEXT CHECK (status IN ('kept', 'discarded')),
  status_value     TEXT,
  entered_stage_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (feature_name, stage),
  CHECK ((stage = 'completed') = (status IS NOT NULL))
);

-- Only a SHA-256 of the secret is kept; the secret is shown once, at creation.
CREATE TABLE api_tokens (
  name         TEXT PRIMARY KEY,
  secret_hash  TEXT NOT NULL UNIQUE,
  projects     JSONB NOT NULL DEFAULT '["*"]'::jsonb,
  environments JSONB NOT NULL DEFAULT '["*"]'::jsonb,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Events outlive what they describe, so they carry names, not foreign keys.
-- data and pre_data are JSON, not JSONB: kept as written, member order included.
CREATE TABLE events (
  id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type         TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  created_by   TEXT NOT NULL,
  project      TEXT,
  feature_name TEXT,
  environment  TEXT,
  data         JSON,
  pre_data     JSON
);
CREATE INDEX events_project_idx ON events (project, id);
CREATE INDEX events_feature_idx ON events (feature_name, id);
CREATE INDEX events_type_idx ON events (type, id);

INSERT INTO projects (id, name, description) VALUES ('default', 'Default', 'Default project');
INSERT INTO environments (name, type) VALUES ('development', 'development'), ('production', 'production');
INSERT INTO project_environments (project_id, environment_name)
  VALUES ('default', 'development'), ('default', 'production');
