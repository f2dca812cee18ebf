-- Webhooks (Unleash's addon shape, provider "webhook") and their deliveries: a transactional
-- outbox. A delivery row is inserted by the same statement as the event it delivers (see
-- insertEvents), so an event that commits has its deliveries and a change that rolls back has
-- none. Every instance's dispatcher claims due rows under a lease and records each attempt.

-- Empty projects/environments lists mean all. The signing secret is kept as written (it signs);
-- during a rotation's overlap the previous one signs too, until previous_secret_until.
-- auth_header and custom_headers are secrets as well: never shown, never in events.
CREATE TABLE webhooks (
  id                    INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  description           TEXT,
  enabled               BOOLEAN NOT NULL,
  events                TEXT[] NOT NULL CHECK (cardinality(events) > 0),
  projects              TEXT[] NOT NULL DEFAULT '{}',
  environments          TEXT[] NOT NULL DEFAULT '{}',
  url                   TEXT NOT NULL,
  content_type          TEXT,
  auth_header           TEXT,
  custom_headers        JSON,
  body_template         TEXT,
  signing_secret        TEXT NOT NULL,
  previous_secret       TEXT,
  previous_secret_until TIMESTAMPTZ,
  created_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- message_id is the webhook-id header: the same on every attempt of one delivery.
-- attempts counts every claim (it fences a process whose lease expired: its result is
-- recorded only while attempts is still the number it claimed); a delivery dies once
-- attempts - attempts_base reaches WEBHOOK_MAX_ATTEMPTS, and a redelivery moves the base.
CREATE TABLE webhook_deliveries (
  id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id        BIGINT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  message_id      TEXT NOT NULL DEFAULT 'msg_' || replace(gen_random_uuid()::text, '-', ''),
  state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  attempts_base   INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  leased_until    TIMESTAMPTZ,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at     TIMESTAMPTZ
);
-- What the dispatchers poll: due pending rows only.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE state <> 'pending';

-- One row per attempt: when, how long (unknown for an attempt whose instance died), the HTTP
-- status (none when no answer came) and why it failed.
CREATE TABLE webhook_attempts (
  delivery_id BIGINT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL,
  started_at  TIMESTAMPTZ NOT NULL,
  duration_ms INTEGER,
  status      INTEGER,
  error       TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
