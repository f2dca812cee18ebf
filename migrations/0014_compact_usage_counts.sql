-- SDK usage counts stored more compactly (issue 30: stored usage within 4x the bytes SDKs send).
--
-- 1. The key leads with the application and the hour, so that a flush's new rows (a new
--    application, a new hour) are appended at the right edge of the index, whose pages then
--    fill up, instead of splitting pages all over an index led by the feature name.
-- 2. When a feature was last evaluated, per environment (what the lifecycle of a completed
--    feature shows), moves to a table of its own with one row per feature and environment:
--    the counts lose their last_seen_at column, and no longer need an index by feature name.
-- 3. Columns ordered so that none needs padding.
CREATE TABLE usage_evaluations (
  feature_name TEXT NOT NULL,
  environment  TEXT NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (feature_name, environment)
);
INSERT INTO usage_evaluations (feature_name, environment, last_seen_at)
  SELECT c.feature_name, a.environment, max(c.last_seen_at)
  FROM usage_counts c JOIN usage_applications a ON a.id = c.application_id
  GROUP BY c.feature_name, a.environment;

CREATE TABLE usage_counts_compact (
  hour           TIMESTAMPTZ NOT NULL,
  yes            BIGINT NOT NULL,
  no             BIGINT NOT NULL,
  application_id INTEGER NOT NULL REFERENCES usage_applications (id) ON DELETE CASCADE,
  feature_name   TEXT NOT NULL,
  variants       JSONB NOT NULL DEFAULT '{}',
  PRIMARY KEY (application_id, hour, feature_name)
);
INSERT INTO usage_counts_compact (hour, yes, no, application_id, feature_name, variants)
  SELECT hour, yes, no, application_id, feature_name, variants FROM usage_counts
  ORDER BY application_id, hour, feature_name;
DROP TABLE usage_counts;
ALTER TABLE usage_counts_compact RENAME TO usage_counts;
ALTER TABLE usage_counts RENAME CONSTRAINT usage_counts_compact_pkey TO usage_counts_pkey;
ALTER TABLE usage_counts RENAME CONSTRAINT usage_counts_compact_application_id_fkey TO usage_counts_application_id_fkey;
-- Pruning deletes by hour; many rows share an hour, which the index stores once (deduplication).
CREATE INDEX usage_counts_hour_idx ON usage_counts (hour);
