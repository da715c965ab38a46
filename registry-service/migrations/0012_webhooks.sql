-- Webhooks: endpoints of third parties that receive every matching change, and the log of what was
-- sent to them. The queue is the commit log (migration 0004) read with one cursor per webhook
-- (fanned_through): a fan-out transaction locks the webhook row, inserts a delivery per matching change
-- of the commits after its cursor and moves the cursor, so a change gets its delivery exactly once
-- whatever crashes, and the pending deliveries wait here, not in any process's memory.

CREATE TABLE webhooks (
  id                     uuid PRIMARY KEY,
  url                    text NOT NULL,
  description            text NOT NULL DEFAULT '',
  -- The filter in the HTTP API's JSON shape; an absent member means no restriction.
  filter                 jsonb NOT NULL,
  enabled                boolean NOT NULL DEFAULT true,
  disabled_reason        text,
  -- The signing secret sealed with AES-256-GCM under WEBHOOK_SECRET_KEY, which the database never
  -- holds: a dump alone cannot sign. The previous one signs beside it until previous_secret_until.
  secret_sealed          bytea NOT NULL,
  previous_secret_sealed bytea,
  previous_secret_until  timestamptz,
  -- Every commit numbered up to this has its deliveries (created_at's commit horizon at creation).
  fanned_through         bigint NOT NULL,
  -- The first failed attempt since the last success: WEBHOOK_DISABLE_AFTER counts from it.
  failing_since          timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhooks_filter_is_object CHECK (jsonb_typeof(filter) = 'object'),
  CONSTRAINT webhooks_disabled_has_reason CHECK (enabled OR disabled_reason IS NOT NULL)
);
CREATE INDEX webhooks_created_at_id_idx ON webhooks (created_at, id);

CREATE TABLE webhook_deliveries (
  -- The webhook-id header of every attempt.
  id               uuid PRIMARY KEY,
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  -- The change: its commit and its place in that commit (the watch order).
  commit_seq       bigint NOT NULL,
  position         int NOT NULL,
  type             text NOT NULL,
  event_id         uuid,
  -- The request body, built once at fan-out (the record as its GET answered it then).
  body             text NOT NULL,
  status           text NOT NULL DEFAULT 'pending',
  attempt_count    int NOT NULL DEFAULT 0,
  last_status_code int,
  last_error       text,
  -- When a pending delivery is due. A replica claiming it moves this to the end of its lease, so a
  -- replica that dies mid-attempt leaves the delivery due again when the lease ends.
  next_attempt_at  timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  succeeded_at     timestamptz,
  CONSTRAINT webhook_deliveries_change_key UNIQUE (webhook_id, commit_seq, position),
  CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
  CONSTRAINT webhook_deliveries_pending_is_due CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- What is due, oldest first, per webhook: first attempts in commit order (fan-out stamps them in it).
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (webhook_id, next_attempt_at, commit_seq, position) WHERE status = 'pending';
-- The delivery log reads newest first along webhook_deliveries_change_key (commit order).
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id, webhook_id) WHERE event_id IS NOT NULL;
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (webhook_id, created_at) WHERE status = 'failed';
-- EVENT_RETENTION deletes the log with the events, oldest first.
CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
  delivery_id   uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at            timestamptz NOT NULL,
  -- NULL: no answer (timeout, connection error, refused address).
  status_code   int,
  duration_ms   int NOT NULL,
  error         text,
  -- At most 1 KiB of the receiver's answer.
  response_body text
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, at);
