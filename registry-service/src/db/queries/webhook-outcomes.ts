import type { DeliveryStatus } from '../../webhooks/webhook-model.js';
import type { Queryable } from '../pool.js';
import { query, timestampFromMicros } from './query.js';

/** What one attempt did to its delivery. */
export interface AttemptOutcome {
  deliveryId: string;
  webhookId: string;
  atMicros: bigint;
  /** Undefined: no answer. */
  statusCode: number | undefined;
  durationMs: number;
  error: string;
  responseBody: string;
  status: DeliveryStatus;
  /** When a pending delivery is due next. */
  nextAttemptAtMicros: bigint | undefined;
  /** Set when the answer disables the webhook (410 Gone): the reason shown. */
  disables: string | undefined;
}

/** The attempt columns, each with its SQL array type and value: one table for the unnest and its parameters. */
const OUTCOME_COLUMNS: ReadonlyArray<readonly [column: string, type: string, value: (o: AttemptOutcome) => unknown]> = [
  ['id', 'uuid', (o) => o.deliveryId],
  ['at', 'timestamptz', (o) => timestampFromMicros(o.atMicros)],
  ['status_code', 'int4', (o) => o.statusCode ?? null],
  ['duration_ms', 'int4', (o) => Math.min(Math.round(o.durationMs), 2 ** 31 - 1)],
  ['error', 'text', (o) => (o.error === '' ? null : o.error)],
  ['response_body', 'text', (o) => o.responseBody],
  ['status', 'text', (o) => o.status],
  ['next_at', 'timestamptz', (o) => (o.nextAttemptAtMicros === undefined ? null : timestampFromMicros(o.nextAttemptAtMicros))],
];

// The rows are locked in id order before the update, as deleting a webhook locks them (webhooks.ts):
// two statements locking the same rows in different orders deadlock, and PostgreSQL aborts one.
const RECORD_ATTEMPTS = `WITH o AS (
    SELECT * FROM unnest(${OUTCOME_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) AS o(${OUTCOME_COLUMNS.map(([c]) => c).join(', ')})
  ), locked AS (
    SELECT d.id FROM webhook_deliveries d WHERE d.id IN (SELECT id FROM o) ORDER BY d.id FOR UPDATE OF d
  ), d AS (
    UPDATE webhook_deliveries d SET status = o.status, attempt_count = d.attempt_count + 1, last_status_code = o.status_code,
      last_error = o.error, next_attempt_at = o.next_at, succeeded_at = CASE WHEN o.status = 'succeeded' THEN o.at END
    FROM o JOIN locked l ON l.id = o.id WHERE d.id = o.id RETURNING d.id
  )
  INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, error, response_body)
  SELECT o.id, o.at, o.status_code, o.duration_ms, o.error, o.response_body FROM o JOIN d ON d.id = o.id`;

/** Records attempts and their deliveries' new state in one statement (a deleted webhook's are dropped). */
export async function recordAttempts(db: Queryable, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await query(db, RECORD_ATTEMPTS, OUTCOME_COLUMNS.map(([, , value]) => outcomes.map(value)), 'registry-webhook-attempts');
}

/** How a batch of attempts went for one webhook. */
export interface WebhookHealth {
  webhookId: string;
  /** Some attempt succeeded: the failing streak ends. */
  succeeded: boolean;
  /** The first failed attempt of the batch (when none succeeded). */
  firstFailureMicros: bigint | undefined;
  /** A reason that disables it at once (410 Gone). */
  disables: string | undefined;
}

/**
 * Updates each webhook's failing streak and disables those that answered 410 or whose every attempt
 * failed for `disableAfterSeconds`. Resolves with the webhooks this disabled and why.
 */
export async function updateWebhookHealth(db: Queryable, health: WebhookHealth[], disableAfterSeconds: number): Promise<Array<{ id: string; reason: string }>> {
  if (health.length === 0) return [];
  return query<{ id: string; reason: string }>(
    db,
    `WITH h AS (
       SELECT * FROM unnest($1::uuid[], $2::bool[], $3::timestamptz[], $4::text[]) AS h(id, ok, first_failure, gone)
     ), before AS (
       SELECT w.id, w.enabled, h.ok, h.gone, CASE WHEN h.ok THEN NULL ELSE coalesce(w.failing_since, h.first_failure) END AS since
       FROM webhooks w JOIN h ON h.id = w.id ORDER BY w.id FOR UPDATE OF w
     ), decided AS (
       SELECT id, since, CASE
         WHEN NOT enabled THEN NULL
         WHEN gone IS NOT NULL THEN gone
         WHEN since <= now() - make_interval(secs => $5) THEN 'every attempt failed since ' || to_char(since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
       END AS reason FROM before
     )
     UPDATE webhooks w SET failing_since = d.since, enabled = w.enabled AND d.reason IS NULL,
       disabled_reason = coalesce(d.reason, w.disabled_reason), updated_at = CASE WHEN d.reason IS NULL THEN w.updated_at ELSE now() END
     FROM decided d WHERE w.id = d.id AND (w.failing_since IS DISTINCT FROM d.since OR d.reason IS NOT NULL)
     RETURNING w.id, d.reason`,
    [
      health.map((h) => h.webhookId),
      health.map((h) => h.succeeded),
      health.map((h) => (h.firstFailureMicros === undefined ? null : timestampFromMicros(h.firstFailureMicros))),
      health.map((h) => h.disables ?? null),
      disableAfterSeconds,
    ],
  ).then((rows) => rows.filter((r) => r.reason !== null));
}
