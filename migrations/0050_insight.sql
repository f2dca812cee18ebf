-- Insight into flags: stale flags, feature search, usage read back, applications, unknown flags.

-- 1. A flag marked stale by a person (Unleash's `stale`); potentially stale is computed when
--    read (the flag outlived its type's expected lifetime), so it is not stored.
ALTER TABLE features ADD COLUMN stale BOOLEAN NOT NULL DEFAULT false;

-- 2. Feature search pages through features in creation order (its default), archived or not.
CREATE INDEX features_created_idx ON features (created_at, name);

-- 3. A flag's usage read back (its chart over 30 days, its last hour in search) is read by flag
--    and hour. Many rows share a flag and an hour (one per application), which the index stores
--    once (deduplication).
CREATE INDEX usage_counts_feature_idx ON usage_counts (feature_name, hour);

-- 4. An instance known only from its metrics (it never registered) has no interval or start.
ALTER TABLE usage_instances ALTER COLUMN interval_ms DROP NOT NULL;
ALTER TABLE usage_instances ALTER COLUMN started_at DROP NOT NULL;

-- 5. Applications as people describe them (Unleash's client_applications): SDKs report usage
--    under an app name, and this adds what they do not say.
CREATE TABLE applications (
  app_name    TEXT PRIMARY KEY,
  description TEXT,
  url         TEXT,
  color       TEXT,
  icon        TEXT,
  -- JSON text: the strategy names the application says it uses.
  strategies  JSON NOT NULL DEFAULT '[]',
  created_by  TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- 6. Names SDKs reported usage of that are no flag here: a typo's only symptom. Kept a day after
--    they were last reported (as Unleash).
CREATE TABLE unknown_flags (
  name         TEXT NOT NULL,
  app_name     TEXT NOT NULL,
  environment  TEXT NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (name, app_name, environment)
);
CREATE INDEX unknown_flags_seen_idx ON unknown_flags (last_seen_at);
