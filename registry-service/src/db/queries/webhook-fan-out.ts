import type { ChangeKind } from '../../webhooks/webhook-model.js';
import type { Queryable } from '../pool.js';
import { query } from './query.js';
import type { FilterJson } from './webhooks.js';

/** A webhook whose cursor is behind the horizon, locked by this fan-out. */
interface FanOutCursor {
  id: string;
  filter: FilterJson;
  fannedThrough: bigint;
}

/**
 * Locks every webhook whose cursor is behind `bound`, skipping those another replica is fanning out
 * (their rows stay locked until its transaction ends), and says whether it skipped any: those are
 * not done, whatever this pass does. Must run inside the fan-out's transaction.
 */
export async function lockCursorsBehind(db: Queryable, bound: bigint): Promise<{ cursors: FanOutCursor[]; skipped: boolean }> {
  const [behind] = await query<{ n: number }>(db, 'SELECT count(*)::int AS n FROM webhooks WHERE fanned_through < $1', [bound.toString()]);
  const rows = await query<{ id: string; filter: FanOutCursor['filter']; fanned_through: string }>(
    db,
    'SELECT id, filter, fanned_through FROM webhooks WHERE fanned_through < $1 ORDER BY id FOR UPDATE SKIP LOCKED',
    [bound.toString()],
  );
  const cursors = rows.map((r) => ({ id: r.id, filter: r.filter, fannedThrough: BigInt(r.fanned_through) }));
  return { cursors, skipped: (behind?.n ?? 0) > cursors.length };
}

/** One delivery fan-out creates: a change for a webhook. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  commitSeq: bigint;
  position: number;
  type: ChangeKind;
  eventId: string | undefined;
  body: string;
}

/** The columns of a new delivery but its body, each with its SQL array type and its value: one table, so parameters and columns cannot drift apart. */
const DELIVERY_COLUMNS: ReadonlyArray<readonly [column: string, type: string, value: (d: NewDelivery) => unknown]> = [
  ['id', 'uuid', (d) => d.id],
  ['webhook_id', 'uuid', (d) => d.webhookId],
  ['commit_seq', 'int8', (d) => d.commitSeq.toString()],
  ['position', 'int4', (d) => d.position],
  ['type', 'text', (d) => d.type],
  ['event_id', 'uuid', (d) => d.eventId ?? null],
];

// Each distinct body travels once ($n+2), each row names its own by index ($n+1): a change that ten
// webhooks take is one body in the statement, not ten. A subscript keeps the rows in array order,
// so clock_timestamp() stamps them in commit order (a join could reorder them).
const BODY_INDEX = DELIVERY_COLUMNS.length + 1;
const INSERT_DELIVERIES = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS.map(([c]) => c).join(', ')}, body, next_attempt_at)
  SELECT ${DELIVERY_COLUMNS.map(([c]) => `d.${c}`).join(', ')}, ($${BODY_INDEX + 1}::text[])[d.body_at], clock_timestamp()
  FROM unnest(${DELIVERY_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}, $${BODY_INDEX}::int4[]) AS d(${DELIVERY_COLUMNS.map(([c]) => c).join(', ')}, body_at)
  ON CONFLICT ON CONSTRAINT webhook_deliveries_change_key DO NOTHING`;

/** Inserts the deliveries (a change already delivered to a webhook keeps its row), due now. */
export async function insertDeliveries(db: Queryable, deliveries: NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  const bodies: string[] = [];
  const indexOf = new Map<string, number>();
  const bodyAt = deliveries.map((d) => {
    let at = indexOf.get(d.body);
    if (at === undefined) indexOf.set(d.body, (at = bodies.push(d.body)));
    return at;
  });
  const values = [...DELIVERY_COLUMNS.map(([, , value]) => deliveries.map(value)), bodyAt, bodies];
  await query(db, INSERT_DELIVERIES, values, 'registry-webhook-insert-deliveries');
}

/** Moves the locked webhooks' cursors to `through`. */
export async function moveCursors(db: Queryable, ids: string[], through: bigint): Promise<void> {
  await query(db, 'UPDATE webhooks SET fanned_through = greatest(fanned_through, $2) WHERE id = ANY($1::uuid[])', [ids, through.toString()]);
}

/** The lowest cursor of all webhooks (undefined: none): the commit log is kept from there on. */
export async function fanOutFloor(db: Queryable): Promise<bigint | undefined> {
  const [row] = await query<{ floor: string | null }>(db, 'SELECT min(fanned_through) AS floor FROM webhooks');
  return row?.floor === null || row?.floor === undefined ? undefined : BigInt(row.floor);
}
