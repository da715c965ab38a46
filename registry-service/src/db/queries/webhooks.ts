import type pg from 'pg';
import type { ChangeKind, WebhookChange, WebhookFilter, WebhookRecord } from '../../webhooks/webhook-model.js';
import type { Queryable } from '../pool.js';
import { micros, query } from './query.js';
import { inTransaction } from './transaction.js';
import { withoutRowDetail } from './tokens.js';

/** A filter as the filter column stores it: the HTTP API's JSON shape. */
export interface FilterJson {
  domains?: string[];
  event_types?: string[];
  device_names?: string[];
  kinds?: string[];
}

interface WebhookRow {
  id: string;
  url: string;
  description: string;
  filter: FilterJson;
  enabled: boolean;
  disabled_reason: string | null;
  created_us: string;
  updated_us: string;
}

/** What every query selects of a webhook (never its sealed secrets: only the sender reads them). */
const WEBHOOK_COLUMNS = `id, url, description, filter, enabled, disabled_reason, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us`;

/** The filter in the HTTP API's JSON shape, as the filter column stores it. */
function filterToJson(filter: WebhookFilter): FilterJson {
  return {
    ...(filter.domains !== undefined ? { domains: filter.domains } : {}),
    ...(filter.eventTypes !== undefined ? { event_types: filter.eventTypes } : {}),
    ...(filter.deviceNames !== undefined ? { device_names: filter.deviceNames } : {}),
    kinds: filter.kinds,
  };
}

export function filterFromJson(json: FilterJson): WebhookFilter {
  return { domains: json.domains, eventTypes: json.event_types, deviceNames: json.device_names, kinds: (json.kinds ?? ['event.created']) as ChangeKind[] };
}

function toWebhookRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filter: filterFromJson(row.filter),
    enabled: row.enabled,
    disabledReason: row.disabled_reason ?? '',
    createdAtMicros: BigInt(row.created_us),
    updatedAtMicros: BigInt(row.updated_us),
  };
}

/** A statement on the webhooks table; its failures never carry row contents (sealed secrets). */
function webhookQuery<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return query<R>(db, text, values).catch((err: unknown) => {
    throw withoutRowDetail(err);
  });
}

interface NewWebhookRow {
  id: string;
  url: string;
  description: string;
  filter: WebhookFilter;
  enabled: boolean;
  secretSealed: Buffer;
  /** Where its cursor starts: every commit numbered after this is its to deliver. */
  fannedThrough: bigint;
}

/** Inserts a webhook whose cursor starts at `fannedThrough` (the commit horizon at its creation: webhooks.ts). */
export async function insertWebhook(db: Queryable, row: NewWebhookRow): Promise<WebhookRecord> {
  const [inserted] = await webhookQuery<WebhookRow>(
    db,
    `INSERT INTO webhooks (id, url, description, filter, enabled, disabled_reason, secret_sealed, fanned_through)
     VALUES ($1, $2, $3, $4, $5::boolean, CASE WHEN $5::boolean THEN NULL ELSE 'disabled by an admin' END, $6, $7)
     RETURNING ${WEBHOOK_COLUMNS}`,
    [row.id, row.url, row.description, filterToJson(row.filter), row.enabled, row.secretSealed, row.fannedThrough.toString()],
  );
  if (!inserted) throw new Error('INSERT … RETURNING answered no row');
  return toWebhookRecord(inserted);
}

export async function findWebhook(db: Queryable, id: string): Promise<WebhookRecord | undefined> {
  const [row] = await webhookQuery<WebhookRow>(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
  return row && toWebhookRecord(row);
}

/** Oldest first, after the (created_at, id) position given. */
export async function listWebhooks(db: Queryable, limit: number, after?: { createdUs: string; id: string }): Promise<WebhookRecord[]> {
  const rows = await webhookQuery<WebhookRow>(
    db,
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
     WHERE $2::int8 IS NULL OR (created_at, id) > (to_timestamp($2::int8 / 1000000.0), $3::uuid)
     ORDER BY created_at, id LIMIT $1`,
    [limit, after?.createdUs ?? null, after?.id ?? null],
  );
  return rows.map(toWebhookRecord);
}

/** Applies a checked change; enabling clears the reason, an admin's disabling says so. */
export async function updateWebhook(db: Queryable, id: string, change: WebhookChange & { filter?: WebhookFilter }): Promise<WebhookRecord | undefined> {
  const [row] = await webhookQuery<WebhookRow>(
    db,
    `UPDATE webhooks SET
       url = coalesce($2::text, url),
       description = coalesce($3::text, description),
       filter = coalesce($4::jsonb, filter),
       enabled = coalesce($5::boolean, enabled),
       disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason WHEN $5::boolean THEN NULL WHEN enabled THEN 'disabled by an admin' ELSE disabled_reason END,
       failing_since = CASE WHEN $5::boolean AND NOT enabled THEN NULL ELSE failing_since END,
       updated_at = now()
     WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`,
    [id, change.url ?? null, change.description ?? null, change.filter ? filterToJson(change.filter) : null, change.enabled ?? null],
  );
  return row && toWebhookRecord(row);
}

/**
 * Deletes a webhook and, by cascade, its deliveries and attempts. It locks the webhook (a fan-out
 * then skips it), then its deliveries in id order, as the outcome statement does
 * (webhook-outcomes.ts): locked in another order, the two would deadlock.
 */
export async function deleteWebhook(pool: pg.Pool, id: string): Promise<WebhookRecord | undefined> {
  return inTransaction(pool, async (db) => {
    const found = await webhookQuery(db, 'SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE', [id]);
    if (found.length === 0) return undefined;
    await webhookQuery(db, 'SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id FOR UPDATE', [id]);
    const [row] = await webhookQuery<WebhookRow>(db, `DELETE FROM webhooks WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`, [id]);
    return row && toWebhookRecord(row);
  });
}

/** The new secret signs from now on; the current one beside it for `overlapSeconds`. False: no such webhook. */
export async function rotateWebhookSecret(db: Queryable, id: string, sealed: Buffer, overlapSeconds: number): Promise<boolean> {
  const rows = await webhookQuery(
    db,
    `UPDATE webhooks SET previous_secret_sealed = secret_sealed, previous_secret_until = now() + make_interval(secs => $3),
       secret_sealed = $2, updated_at = now()
     WHERE id = $1 RETURNING 1`,
    [id, sealed, overlapSeconds],
  );
  return rows.length === 1;
}

/** What the sender needs of every webhook: where to send, with which secrets, whether it may. */
interface SendingRow {
  id: string;
  url: string;
  enabled: boolean;
  secret_sealed: Buffer;
  /** Only while it still signs (previous_secret_until in the future). */
  previous_secret_sealed: Buffer | null;
}

export function sendingWebhooks(db: Queryable): Promise<SendingRow[]> {
  return webhookQuery<SendingRow>(
    db,
    `SELECT id, url, enabled, secret_sealed, CASE WHEN previous_secret_until > now() THEN previous_secret_sealed END AS previous_secret_sealed
     FROM webhooks ORDER BY created_at, id`,
  );
}
