-- What a person told the admin UI: feedback prompts answered (or never to be shown again), and
-- splash screens seen. Unleash's UI reads both back from GET /api/admin/user.
CREATE TABLE user_feedback (
  user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  feedback_id TEXT NOT NULL,
  given       TIMESTAMPTZ,
  never_show  BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (user_id, feedback_id)
);

CREATE TABLE user_splash (
  user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  splash_id TEXT NOT NULL,
  seen_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, splash_id)
);
