import type { AttemptRecord, ChangeKind, DeliveryRecord, DeliveryStatus } from '../../webhooks/webhook-model.js';
import type { Queryable } from '../pool.js';
import { micros, query, timestampFromMicros } from './query.js';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string | null;
  type: ChangeKind;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_us: string | null;
  created_us: string;
  succeeded_us: string | null;
}

const DELIVERY_COLUMNS = `id, webhook_id, event_id, type, status, attempt_count, last_status_code, last_error,
  ${micros('next_attempt_at')} AS next_us, ${micros('created_at')} AS created_us, ${micros('succeeded_at')} AS succeeded_us`;

const optional = (us: string | null): bigint | undefined => (us === null ? undefined : BigInt(us));

function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id ?? undefined,
    type: row.type,
    status: row.status,
    attemptCount: row.attempt_count,
    lastStatusCode: row.last_status_code ?? undefined,
    lastError: row.last_error ?? '',
    nextAttemptAtMicros: optional(row.next_us),
    createdAtMicros: BigInt(row.created_us),
    succeededAtMicros: optional(row.succeeded_us),
  };
}

interface DeliveryQuery {
  webhookId: string;
  status: DeliveryStatus | undefined;
  eventId: string | undefined;
  limit: number;
  /** The last change of the previous page (commit number, position): the log is in commit order. */
  before: { seq: string; position: string } | undefined;
}

/** A webhook's deliveries, newest change first; each row carries its change's place for the next page. */
export async function listDeliveries(db: Queryable, q: DeliveryQuery): Promise<Array<DeliveryRecord & { place: [string, string] }>> {
  const rows = await query<DeliveryRow & { commit_seq: string; position: number }>(
    db,
    `SELECT ${DELIVERY_COLUMNS}, commit_seq, position FROM webhook_deliveries
     WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::uuid IS NULL OR event_id = $3)
       AND ($4::int8 IS NULL OR (commit_seq, position) < ($4::int8, $5::int4))
     ORDER BY commit_seq DESC, position DESC LIMIT $6`,
    [q.webhookId, q.status ?? null, q.eventId ?? null, q.before?.seq ?? null, q.before?.position ?? null, q.limit],
  );
  return rows.map((row) => ({ ...toDeliveryRecord(row), place: [row.commit_seq, String(row.position)] }));
}

/** One delivery with its attempts, oldest first. */
export async function findDelivery(db: Queryable, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
  const [row] = await query<DeliveryRow>(db, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, id]);
  if (!row) return undefined;
  const attempts = await query<{ at_us: string; status_code: number | null; duration_ms: number; error: string | null; response_body: string | null }>(
    db,
    `SELECT ${micros('at')} AS at_us, status_code, duration_ms, error, response_body FROM webhook_attempts WHERE delivery_id = $1 ORDER BY at`,
    [id],
  );
  return {
    ...toDeliveryRecord(row),
    attempts: attempts.map(
      (a): AttemptRecord => ({ atMicros: BigInt(a.at_us), statusCode: a.status_code ?? undefined, durationMs: a.duration_ms, error: a.error ?? '', responseBody: a.response_body ?? '' }),
    ),
  };
}

/** Makes a delivery pending and due now, whatever its status; keeps its id, body and attempts. */
export async function retryDelivery(db: Queryable, webhookId: string, id: string): Promise<DeliveryRecord | undefined> {
  const [row] = await query<DeliveryRow>(
    db,
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() WHERE webhook_id = $1 AND id = $2 RETURNING ${DELIVERY_COLUMNS}`,
    [webhookId, id],
  );
  return row && toDeliveryRecord(row);
}

/** Makes every failed delivery created since then pending and due now; resolves with how many. */
export async function recoverDeliveries(db: Queryable, webhookId: string, sinceMicros: bigint): Promise<number> {
  const rows = await query(
    db,
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now()
     WHERE webhook_id = $1 AND status = 'failed' AND created_at >= $2::timestamptz RETURNING 1`,
    [webhookId, timestampFromMicros(sinceMicros)],
  );
  return rows.length;
}

/** Pending deliveries and the age of the oldest, per webhook (for the backlog metrics). */
export async function pendingBacklog(db: Queryable): Promise<Array<{ webhookId: string; pending: number; oldestSeconds: number }>> {
  const rows = await query<{ webhook_id: string; pending: string; oldest_s: number | null }>(
    db,
    `SELECT w.id AS webhook_id, count(d.id) AS pending, extract(epoch FROM now() - min(d.created_at))::float8 AS oldest_s
     FROM webhooks w LEFT JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.status = 'pending' GROUP BY w.id`,
  );
  return rows.map((r) => ({ webhookId: r.webhook_id, pending: Number(r.pending), oldestSeconds: r.oldest_s ?? 0 }));
}
