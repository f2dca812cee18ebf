-- What an export carries besides features and strategies: context fields (with legal values),
-- tag types, tags and the tags of features, and feature types (a feature's type must be one).

CREATE TABLE context_fields (
  name         TEXT PRIMARY KEY,
  description  TEXT,
  -- Whether the field may be used for stickiness (custom stickiness).
  stickiness   BOOLEAN NOT NULL DEFAULT false,
  sort_order   INTEGER NOT NULL DEFAULT 0,
  -- [{value, description?}], JSON text in the order given.
  legal_values JSON NOT NULL DEFAULT '[]',
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The built-in fields, with Unleash's descriptions, sort orders and stickiness; remoteAddress
-- too, which every SDK sends and constraints may read.
INSERT INTO context_fields (name, description, sort_order, stickiness) VALUES
  ('environment', 'Allows you to constrain on application environment', 0, false),
  ('userId', 'Allows you to constrain on userId', 1, true),
  ('appName', 'Allows you to constrain on application name', 2, false),
  ('currentTime', 'Allows you to constrain on date values', 3, false),
  ('sessionId', 'Allows you to constrain on sessionId', 4, true),
  ('remoteAddress', 'Allows you to constrain on remoteAddress', 5, false);

CREATE TABLE feature_types (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  description   TEXT NOT NULL,
  -- Days after which a feature of this type is potentially stale; NULL: never.
  lifetime_days INTEGER CHECK (lifetime_days > 0),
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO feature_types (id, name, description, lifetime_days) VALUES
  ('release', 'Release', 'Roll out new or incomplete features. Expected lifetime ~40 days', 40),
  ('experiment', 'Experiment', 'A/B and multivariate testing. Expected lifetime ~40 days', 40),
  ('operational', 'Operational', 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days', 7),
  ('kill-switch', 'Kill switch', 'Quickly disable certain functionalities or features. Expected lifetime: permanent', NULL),
  ('permission', 'Permission', 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', NULL),
  ('sunset', 'Sunset', 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', 90);

ALTER TABLE features
  ADD CONSTRAINT features_type_fkey FOREIGN KEY (type) REFERENCES feature_types (id) ON DELETE RESTRICT;

CREATE TABLE tag_types (
  name        TEXT PRIMARY KEY,
  description TEXT NOT NULL DEFAULT '',
  icon        TEXT,
  color       TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO tag_types (name, description, icon) VALUES ('simple', 'Used to simplify filtering of features', '#');

CREATE TABLE tags (
  type       TEXT NOT NULL REFERENCES tag_types (name) ON DELETE CASCADE,
  value      TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (type, value)
);

CREATE TABLE feature_tags (
  feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  tag_type     TEXT NOT NULL,
  tag_value    TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (feature_name, tag_type, tag_value),
  FOREIGN KEY (tag_type, tag_value) REFERENCES tags (type, value) ON DELETE CASCADE
);
CREATE INDEX feature_tags_tag_idx ON feature_tags (tag_type, tag_value);
