-- 1. A client state version that commits cannot overtake.
--
-- Event ids are handed out at insert, not at commit, so the newest id can be committed while
-- an older one is still in flight; a version read as max(id) then never moves for the older
-- change. Instead, every transaction that records events adds one to a counter in the same
-- transaction, and the version is the sum of the counters: it grows with every commit, in
-- whatever order transactions commit, and a rolled-back change adds nothing. The counter is
-- split into shards (a connection uses the one of its backend pid), so that concurrent writers
-- do not queue on one row; a reader sums them.
CREATE TABLE state_version_shards (
  shard   INTEGER PRIMARY KEY,
  changes BIGINT NOT NULL DEFAULT 0
) WITH (fillfactor = 10);
INSERT INTO state_version_shards (shard) SELECT generate_series(0, 255);

-- 2. SDK usage, stored compactly and keyed by the token that reported it.
--
-- An application is one app name reported with one client token (its environment and project
-- scope are part of the key, so that tokens never overwrite each other's registrations); its
-- name is stored once. Counts are one row per feature, application and hour, with the variant
-- counts of that hour in one JSON object.
CREATE TABLE usage_applications (
  id           INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_name   TEXT NOT NULL,
  environment  TEXT NOT NULL,
  projects     TEXT NOT NULL,
  app_name     TEXT NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (token_name, environment, projects, app_name)
);

CREATE TABLE usage_instances (
  application_id INTEGER NOT NULL REFERENCES usage_applications (id) ON DELETE CASCADE,
  instance_id    TEXT NOT NULL,
  sdk_version    TEXT,
  strategies     JSON NOT NULL,
  interval_ms    INTEGER NOT NULL,
  started_at     TIMESTAMPTZ NOT NULL,
  last_seen_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (application_id, instance_id)
);

CREATE TABLE usage_counts (
  feature_name   TEXT NOT NULL,
  application_id INTEGER NOT NULL REFERENCES usage_applications (id) ON DELETE CASCADE,
  hour           TIMESTAMPTZ NOT NULL,
  yes            BIGINT NOT NULL,
  no             BIGINT NOT NULL,
  variants       JSONB NOT NULL DEFAULT '{}',
  last_seen_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (feature_name, application_id, hour)
);
CREATE INDEX usage_counts_hour_idx ON usage_counts (hour);

-- What was recorded before: registrations under the token that sent them; counts (which did
-- not record their token) under one application per environment and app name, with an empty
-- token name.
INSERT INTO usage_applications (token_name, environment, projects, app_name, last_seen_at)
  SELECT token_name, environment, '["*"]', app_name, max(last_seen_at)
  FROM client_applications GROUP BY token_name, environment, app_name;
INSERT INTO usage_instances (application_id, instance_id, sdk_version, strategies, interval_ms, started_at, last_seen_at)
  SELECT a.id, c.instance_id, c.sdk_version, c.strategies, c.interval_ms, c.started_at, c.last_seen_at
  FROM client_applications c
  JOIN usage_applications a
    ON a.token_name = c.token_name AND a.environment = c.environment AND a.app_name = c.app_name;
INSERT INTO usage_applications (token_name, environment, projects, app_name, last_seen_at)
  SELECT '', environment, '["*"]', app_name, max(last_seen_at)
  FROM client_metrics GROUP BY environment, app_name;
INSERT INTO usage_counts (feature_name, application_id, hour, yes, no, variants, last_seen_at)
  SELECT m.feature_name, a.id, m.hour, m.yes, m.no,
    coalesce((
      SELECT jsonb_object_agg(v.variant, v.count)
      FROM client_metrics_variants v
      WHERE v.feature_name = m.feature_name AND v.environment = m.environment
        AND v.app_name = m.app_name AND v.hour = m.hour
    ), '{}'),
    m.last_seen_at
  FROM client_metrics m
  JOIN usage_applications a ON a.token_name = '' AND a.environment = m.environment AND a.app_name = m.app_name;

DROP TABLE client_metrics_variants;
DROP TABLE client_metrics;
DROP TABLE client_applications;
