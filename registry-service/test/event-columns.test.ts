/**
 * The event's stored fields are one table (event-columns.ts): the write statement's events, the
 * row and JSON selects and the mappings back are built from it. On a real PostgreSQL: the table
 * names every column of `events` and nothing else; every column written lands in its own column
 * (checked against the row as PostgreSQL holds it, not through the table), and every read form
 * (GetEvent's row, a list page, the watch records, the tail's JSON, an Idempotency-Key's replay)
 * maps it back to the same StoredEvent. The types are checked by `npm run typecheck`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { runMigrations } from '../src/db/migrate.js';
import { commitsBetween, recordsOf } from '../src/db/queries/commit-log.js';
import { pollHorizonWithTail, type PendingNumber } from '../src/db/queries/commit-tail.js';
import { EVENT_TABLE, written, type NewEventRow, type StoredEvent } from '../src/db/queries/event-columns.js';
import { TEXT } from '../src/db/queries/event-sql-types.js';
import { findEvent } from '../src/db/queries/events.js';
import { findIdempotencyKeys } from '../src/db/queries/idempotency-keys.js';
import { listEvents } from '../src/db/queries/list-events.js';
import { insertRecordBatch } from '../src/db/queries/record-events.js';
import type { PropertyInput } from '../src/model.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { silent, testPool } from './helpers.js';

const up = await postgresAvailable();

// The field types the table yields: a column added to the table without its type here fails the typecheck.
expectTypeOf<StoredEvent>().toEqualTypeOf<{
  id: string;
  objectRef: string;
  deviceName: string;
  domain: string;
  eventType: string;
  images: string[];
  videoClips: string[];
  properties: PropertyInput[];
  tokenId: string | undefined;
  occurredUs: bigint | undefined;
  createdUs: bigint;
  updatedUs: bigint;
}>();
// What the write statement takes: every field but those the database fills.
expectTypeOf<NewEventRow>().toEqualTypeOf<Omit<StoredEvent, 'createdUs' | 'updatedUs'>>();
// A written column must say how it is written and how it is read back.
// @ts-expect-error: no write mapping
written({ field: 'note', column: 'note', sql: TEXT, read: (wire) => wire });
// @ts-expect-error: a read mapping whose wire type is not the SQL type's
written({ field: 'note', column: 'note', sql: TEXT, read: (wire: number) => wire, write: (value) => value });

/** Polls the commit horizon until it passes `after` (other test files' open transactions may hold it back). */
async function tailAfter(pool: pg.Pool, after: bigint) {
  const pending: PendingNumber[] = [];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const poll = await pollHorizonWithTail(pool, pending.at(-1)?.n ?? after, after, pending, 1000, 1 << 30);
    if (poll.tail.through > after) return poll.tail;
    if (poll.xid !== undefined) pending.push({ n: poll.n, xid: poll.xid });
  }
  throw new Error('the horizon did not move in 10 s');
}

async function write(pool: pg.Pool, event: NewEventRow, key?: string) {
  const stored = await insertRecordBatch(pool, {
    devices: [{ name: event.deviceName, tokenId: undefined }],
    objects: [{ id: event.objectRef, objectDomain: event.domain, objectId: event.objectRef.slice(event.domain.length + 1), objectName: 'Gate', objectType: 'channel', deviceName: event.deviceName, tokenId: undefined }],
    types: [{ domain: event.domain, eventType: event.eventType, displayName: 'Motion', displayDescription: 'Something moved', tokenId: undefined }],
    events: [event],
    keys: key === undefined ? undefined : [{ scope: 'columns-test', key, requestHash: 'h', eventId: event.id }],
  });
  const times = stored.times.get(event.id);
  if (!times) throw new Error('no times returned');
  return { stored: { ...event, ...times } satisfies StoredEvent, commitSeq: stored.commitSeq };
}

/** Every column as PostgreSQL holds it (to_jsonb: keyed by column name), the times as microseconds. */
async function columnsOf(pool: pg.Pool, id: string) {
  const micros = (c: string) => `floor(extract(epoch FROM e.${c}) * 1000000)::int8::text`;
  const { rows } = await pool.query<{ columns: Record<string, unknown>; occurred: string | null; created: string; updated: string }>(
    `SELECT to_jsonb(e) AS columns, ${micros('occurred_at')} AS occurred, ${micros('created_at')} AS created, ${micros('updated_at')} AS updated FROM events e WHERE e.id = $1`,
    [id],
  );
  return rows[0]!;
}

const cases: [string, (n: number) => NewEventRow][] = [
  [
    'every column set, each to a value no other column has',
    (n) => ({
      id: uuidv7(),
      objectRef: `acme.columns.object-${n}`,
      deviceName: `device-${n}`,
      domain: 'acme.columns',
      eventType: `type-${n}`,
      images: ['https://example.com/1.jpg', 'https://example.com/2.jpg'],
      videoClips: ['https://example.com/clip.mp4'],
      properties: [{ key: 'plate', value: 'AB-123' }, { key: '__proto__', value: 'own data' }],
      tokenId: '0192f0c4-5e1d-7a00-8000-00000000000a',
      occurredUs: 1_700_000_000_123_457n,
    }),
  ],
  [
    'the optional columns unset',
    (n) => ({
      id: uuidv7(),
      objectRef: `acme.columns.object-${n}`,
      deviceName: `device-${n}`,
      domain: 'acme.columns',
      eventType: `type-${n}`,
      images: [],
      videoClips: [],
      properties: [],
      tokenId: undefined,
      occurredUs: undefined,
    }),
  ],
];

describe.skipIf(!up)('the event column table', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = testPool(db.url, 2);
    await runMigrations(pool, silent);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('names every column of the events table once, and no other', async () => {
    const { rows } = await pool.query<{ name: string }>(`SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'events' AND table_schema = current_schema()`);
    const columns = EVENT_TABLE.map((c) => c.column);
    expect(new Set(columns).size).toBe(columns.length);
    expect(new Set(EVENT_TABLE.map((c) => c.field)).size).toBe(columns.length);
    expect([...columns].sort()).toEqual(rows.map((r) => r.name).sort());
  });

  it.each(cases.map(([name, make], i) => [name, make, i] as const))('%s: stored in its own column, and read back the same by every read', async (_, make, i) => {
    const event = make(i);
    const key = `key-${i}`;
    const { stored, commitSeq } = await write(pool, event, key);

    const held = await columnsOf(pool, event.id);
    expect(held.columns).toEqual({
      id: event.id,
      object_ref: event.objectRef,
      device_name: event.deviceName,
      domain: event.domain,
      event_type: event.eventType,
      images: event.images,
      video_clips: event.videoClips,
      additional_properties: Object.fromEntries(event.properties.map((p) => [p.key, p.value])),
      token_id: event.tokenId ?? null,
      occurred_at: event.occurredUs === undefined ? null : expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect([held.occurred, held.created, held.updated]).toEqual([event.occurredUs?.toString() ?? null, stored.createdUs.toString(), stored.updatedUs.toString()]);

    expect(await findEvent(pool, event.id)).toEqual(stored);
    expect((await listEvents(pool, { deviceName: event.deviceName, newestFirst: true, limit: 10, maxBytes: 1 << 20 })).events).toEqual([stored]);
    const page = await commitsBetween(pool, commitSeq - 1n, commitSeq, 10, 1 << 20);
    expect((await recordsOf(pool, page.commits)).events.get(event.id)).toEqual(stored);
    expect((await tailAfter(pool, commitSeq - 1n)).events.get(event.id)).toEqual(stored);
    expect(await findIdempotencyKeys(pool, [{ scope: 'columns-test', key }])).toEqual([{ scope: 'columns-test', key, requestHash: 'h', event: stored }]);
  });
});
