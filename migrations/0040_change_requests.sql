-- Change requests, in Unleash Enterprise's shapes: which environments of a project need them
-- (and how many approvals), the requests with their changes, reviews, comments and requested
-- reviewers, and the schedule. People are kept by id and by name: a request outlives its
-- author's account, and what the screens show of them stays readable.

-- An environment of a project where a person's direct writes are refused: they go through a
-- change request, applied once required_approvals people other than its author approved it.
CREATE TABLE change_request_settings (
  project_id         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_name   TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
  enabled            BOOLEAN NOT NULL,
  required_approvals INTEGER NOT NULL CHECK (required_approvals BETWEEN 1 AND 10),
  updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, environment_name)
);

CREATE TABLE change_requests (
  id                   INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id           TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_name     TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
  state                TEXT NOT NULL CHECK (state IN ('Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Cancelled', 'Rejected')),
  title                TEXT,
  -- The approvals needed, as the environment required when the request was created.
  min_approvals        INTEGER NOT NULL CHECK (min_approvals BETWEEN 1 AND 10),
  created_by_user_id   INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_by_name      TEXT NOT NULL,
  created_at           TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- Each state entered, with the last time it was entered: {"Draft": "2024-…", …} (JSON text).
  state_timestamps     TEXT NOT NULL,
  -- The schedule, while Scheduled: when, and whether it is still to come (pending) or could not
  -- apply (failed: a write refused; suspended: a conflict, or the person who scheduled it is gone).
  scheduled_at         TIMESTAMPTZ,
  schedule_status      TEXT CHECK (schedule_status IN ('pending', 'failed', 'suspended')),
  schedule_reason      TEXT,
  scheduled_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  scheduled_by_name    TEXT,
  CHECK ((state = 'Scheduled') = (scheduled_at IS NOT NULL AND schedule_status IS NOT NULL))
);
-- One open request per author and environment: a change a person proposes goes into it.
CREATE UNIQUE INDEX change_requests_open_key ON change_requests (project_id, environment_name, created_by_user_id)
  WHERE state IN ('Draft', 'In review', 'Approved');
CREATE INDEX change_requests_project_idx ON change_requests (project_id, id);
-- The scheduler's queue: what is due, soonest first.
CREATE INDEX change_requests_due_idx ON change_requests (scheduled_at) WHERE state = 'Scheduled' AND schedule_status = 'pending';

-- One change of a request. target: the version of what it changes when it was added or last
-- edited (JSON text: the strategy's revision, the variants' revision, the segment as stored,
-- whether the feature is archived), so that a target that moved since is told as a conflict.
-- No foreign key to the feature or segment: a change outlives them (and then says so).
CREATE TABLE change_request_changes (
  id                 INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  change_request_id  INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  feature_name       TEXT,
  segment_id         INTEGER,
  action             TEXT NOT NULL,
  payload            TEXT NOT NULL,
  target             TEXT NOT NULL,
  created_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_by_name    TEXT NOT NULL,
  created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK ((feature_name IS NULL) <> (segment_id IS NULL))
);
CREATE INDEX change_request_changes_request_idx ON change_request_changes (change_request_id, id);
CREATE INDEX change_request_changes_feature_idx ON change_request_changes (feature_name) WHERE feature_name IS NOT NULL;

-- Approvals and rejections, one of each per person and request.
CREATE TABLE change_request_reviews (
  id                INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  change_request_id INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id           INTEGER REFERENCES users (id) ON DELETE SET NULL,
  user_name         TEXT NOT NULL,
  verdict           TEXT NOT NULL CHECK (verdict IN ('approved', 'rejected')),
  created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (change_request_id, user_id, verdict)
);

CREATE TABLE change_request_comments (
  id                INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  change_request_id INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id           INTEGER REFERENCES users (id) ON DELETE SET NULL,
  user_name         TEXT NOT NULL,
  text              TEXT NOT NULL,
  created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX change_request_comments_request_idx ON change_request_comments (change_request_id, id);

-- The people the author asked to review.
CREATE TABLE change_request_reviewers (
  change_request_id INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id           INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (change_request_id, user_id)
);

-- A change made by applying a change request: its id and its author's name (the event's
-- created_by is who applied it, or scheduled it).
ALTER TABLE events ADD COLUMN change_request_id INTEGER;
ALTER TABLE events ADD COLUMN change_request_author TEXT;
