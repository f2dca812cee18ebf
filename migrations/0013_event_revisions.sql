-- Revisions for streaming and delta SDKs (src/client/streaming.service.ts): the transaction
-- that wrote each event. Event ids come from a sequence at insert, and transactions commit in
-- another order, so "the events after id N" can skip one that commits later with a smaller id.
-- A reader instead takes the events of transactions below its snapshot's xmin, all finished:
-- no event can appear there later. Stored as bigint (xid8 as a number) for plain comparisons.
ALTER TABLE events ADD COLUMN xact_id BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX events_xact_id ON events (xact_id);
