-- What a feature carries besides its configuration: whether it is stale, who created it, links
-- to elsewhere (an issue, a dashboard), and the people who marked it (or its project) as a
-- favourite.

-- IF NOT EXISTS: the stale flags of the insight work write the same column.
ALTER TABLE features ADD COLUMN IF NOT EXISTS stale BOOLEAN NOT NULL DEFAULT false;
-- The person who created it (none for an API token or an import at start-up); kept when the
-- person is deleted, as the events keep their name.
ALTER TABLE features ADD COLUMN IF NOT EXISTS created_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX IF NOT EXISTS features_created_by_user_id ON features (created_by_user_id) WHERE created_by_user_id IS NOT NULL;

CREATE TABLE feature_links (
  -- A ULID: links of a feature are listed in the order they were added.
  id           TEXT PRIMARY KEY,
  feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  -- Normalised (https by default, lower-case host, no www., no default port or trailing slash).
  url          TEXT NOT NULL,
  title        TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX feature_links_feature_name ON feature_links (feature_name, id);

CREATE TABLE favorite_features (
  user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, feature_name)
);
CREATE INDEX favorite_features_feature_name ON favorite_features (feature_name);

CREATE TABLE favorite_projects (
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, project_id)
);
CREATE INDEX favorite_projects_project_id ON favorite_projects (project_id);
