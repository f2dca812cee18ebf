-- Segments (named constraint sets shared by strategies), dependent features, and
-- impressionData on features. Strategy variants live in feature_strategies.variants (0007).

CREATE TABLE segments (
  id          INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  description TEXT,
  -- A segment of a project can only be used there; NULL: anywhere.
  project_id  TEXT REFERENCES projects (id) ON DELETE CASCADE,
  -- Constraints exactly as sent, JSON text.
  constraints JSON NOT NULL DEFAULT '[]',
  created_by  TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Which segments a strategy uses. A segment in use cannot be deleted.
CREATE TABLE feature_strategy_segments (
  strategy_id TEXT NOT NULL REFERENCES feature_strategies (id) ON DELETE CASCADE,
  segment_id  INTEGER NOT NULL REFERENCES segments (id) ON DELETE RESTRICT,
  PRIMARY KEY (strategy_id, segment_id)
);
CREATE INDEX feature_strategy_segments_segment_idx ON feature_strategy_segments (segment_id);

-- A child feature is on only when each of its parents is (or is off, with enabled false).
CREATE TABLE feature_dependencies (
  child      TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  parent     TEXT NOT NULL REFERENCES features (name) ON DELETE RESTRICT,
  enabled    BOOLEAN NOT NULL DEFAULT true,
  -- Variant names of the parent, JSON text; NULL when none were given.
  variants   JSON,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (child, parent),
  CHECK (child <> parent)
);
CREATE INDEX feature_dependencies_parent_idx ON feature_dependencies (parent);

ALTER TABLE features ADD COLUMN impression_data BOOLEAN NOT NULL DEFAULT false;
