-- All of Unleash's lifecycle stages: pre-live and live come from SDK usage, archived from
-- archiving. Applications registered by SDKs, and their metrics in hourly buckets.

ALTER TABLE feature_lifecycles DROP CONSTRAINT feature_lifecycles_stage_check;
ALTER TABLE feature_lifecycles
  ADD CONSTRAINT feature_lifecycles_stage_check
  CHECK (stage IN ('initial', 'pre-live', 'live', 'completed', 'archived'));

ALTER TABLE features ADD COLUMN archived_at TIMESTAMPTZ;

CREATE TABLE client_applications (
  app_name     TEXT NOT NULL,
  instance_id  TEXT NOT NULL,
  environment  TEXT NOT NULL,
  token_name   TEXT NOT NULL,
  sdk_version  TEXT,
  strategies   JSON NOT NULL DEFAULT '[]',
  interval_ms  INTEGER NOT NULL,
  started_at   TIMESTAMPTZ NOT NULL,
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (app_name, instance_id)
);

CREATE TABLE client_metrics (
  feature_name TEXT NOT NULL,
  environment  TEXT NOT NULL,
  app_name     TEXT NOT NULL,
  hour         TIMESTAMPTZ NOT NULL,
  yes          BIGINT NOT NULL DEFAULT 0,
  no           BIGINT NOT NULL DEFAULT 0,
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (feature_name, environment, app_name, hour)
);

CREATE TABLE client_metrics_variants (
  feature_name TEXT NOT NULL,
  environment  TEXT NOT NULL,
  app_name     TEXT NOT NULL,
  hour         TIMESTAMPTZ NOT NULL,
  variant      TEXT NOT NULL,
  count        BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (feature_name, environment, app_name, hour, variant)
);
