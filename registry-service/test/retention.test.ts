/**
 * EVENT_RETENTION and WATCH_RETENTION on a real PostgreSQL: old events go in small batches with
 * their Idempotency-Keys, pages and watches in progress go on, and a cursor into purged watch
 * history gets FAILED_PRECONDITION.
 */
import { AppError, registry } from '@dynamic-events/proto';
import { callStream } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { createRetention } from '../src/jobs/retention.js';
import { countRows, sampleEvent, silent, startRegistry, unique, type TestRegistry } from './helpers.js';
import { countAllCommits } from './counts-support.js';

const up = await postgresAvailable();
const filter = (deviceName: string): registry.EventFilter => ({ deviceName, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined });

/**
 * A watch's first message waits for the commit horizon, which waits for the oldest transaction of
 * the whole cluster: with other test files writing to the same server it may take up to the
 * registry's 2 s start wait. Reading only the first message stops at it, so this bound costs nothing.
 */
const FIRST_MESSAGE_MS = 10_000;

/** Reads a watch until `count` events arrived or `ms` passed; resolves with the events and how it ended. */
async function collect(t: TestRegistry, request: Partial<registry.WatchRequest>, count: number, ms = 3000) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const messages: registry.WatchResponse[] = [];
  const events = () => messages.flatMap((m) => m.changes).filter((c) => c.event);
  let error: AppError | undefined;
  try {
    const full = { filter: undefined, kinds: [], afterCursor: '', ...request };
    for await (const m of callStream(t.client.watch.bind(t.client), full, { deadlineMs: 60_000, signal: abort.signal })) {
      messages.push(m);
      if (events().length >= count) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) error = err as AppError;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { messages, events: events().map((c) => c.event!.id), error };
}

async function deletedRows(t: TestRegistry, table: string): Promise<number> {
  const data = await t.metrics.retentionRowsDeleted.get();
  return data.values.find((v) => v.labels.table === table)?.value ?? 0;
}

describe.skipIf(!up)('retention', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let t: TestRegistry;
  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startRegistry({ databaseUrl: db.url, eventRetentionSeconds: 3600, watchRetentionSeconds: 2 });
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
  });

  it('deletes events older than EVENT_RETENTION in batches, keys with them; pages and watches in progress go on', async () => {
    const device = unique('old');
    const start = await collect(t, { filter: filter(device) }, 0, FIRST_MESSAGE_MS);
    const cursor = start.messages[0]!.cursor;
    const keyed = { ...sampleEvent({ source: { deviceName: device } }), idempotencyKey: unique('key'), requestHash: 'h' };
    const { events } = await t.api.recordEvents([keyed, ...Array.from({ length: 29 }, () => sampleEvent({ source: { deviceName: device } }))]);
    const ids = events.map((e) => e!.id);
    const [old, kept] = [ids.slice(0, 20), ids.slice(20)];
    await t.pool.query(`UPDATE events SET created_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [old]);
    // A page is read before retention runs; its token still leads to the rest afterwards.
    const first = await t.api.listEvents({ filter: filter(device), pageSize: 4 });

    const retention = createRetention({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, eventRetentionSeconds: 3600, watchRetentionSeconds: 3600, batch: 7 });
    expect(await retention.runOnce()).toEqual({ events: 20, commits: 0, deliveries: 0 });
    expect(await deletedRows(t, 'events')).toBe(20);
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(10);
    expect(await countRows(t.pool, 'idempotency_keys', 'key = $1', [keyed.idempotencyKey])).toBe(0);

    const rest = await t.api.listEvents({ filter: filter(device), pageSize: 100, pageToken: first.nextPageToken });
    expect([...first.events, ...rest.events].map((e) => e.id).sort()).toEqual([...kept].sort());
    // A watcher resuming from before gets the events that remain, in order, and no error for the others.
    const resumed = await collect(t, { filter: filter(device), afterCursor: cursor }, kept.length);
    expect(resumed.error).toBeUndefined();
    expect(resumed.events).toEqual(kept);
  });

  it('purges watch history older than WATCH_RETENTION: an older cursor gets FAILED_PRECONDITION, a recent one resumes', async () => {
    const device = unique('history');
    const start = await collect(t, { filter: filter(device) }, 0, FIRST_MESSAGE_MS);
    const stale = start.messages[0]!.cursor;
    await t.api.recordEvents([sampleEvent({ source: { deviceName: device } })]);
    await new Promise((r) => setTimeout(r, 2200));
    const recent = (await collect(t, { filter: filter(device) }, 0, FIRST_MESSAGE_MS)).messages[0]!.cursor;
    const after = (await t.api.recordEvents([sampleEvent({ source: { deviceName: device } })])).events[0]!.id;

    // The counts' pass (main.ts runs it) has counted them: only counted commits are purged.
    await countAllCommits(t);
    const purged = await t.server.retention.runOnce();
    expect(purged.commits).toBeGreaterThan(0);
    expect(await deletedRows(t, 'commit_log')).toBe(purged.commits);
    const refused = await collect(t, { filter: filter(device), afterCursor: stale }, 1);
    expect(refused.error?.code).toBe('FAILED_PRECONDITION');
    expect(refused.error?.details.field).toBe('after_cursor');
    expect(refused.messages).toEqual([]);
    const resumed = await collect(t, { filter: filter(device), afterCursor: recent }, 1);
    expect(resumed.error).toBeUndefined();
    expect(resumed.events).toEqual([after]);
  });

  it('keeps the watch history no longer than the events (WATCH_RETENTION capped at EVENT_RETENTION)', async () => {
    await t.api.recordEvents([sampleEvent({ source: { deviceName: unique('cap') } })]);
    await new Promise((r) => setTimeout(r, 1200));
    const retention = createRetention({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, eventRetentionSeconds: 1, watchRetentionSeconds: 86_400 });
    await countAllCommits(t);
    const removed = await retention.runOnce();
    expect(removed.events).toBeGreaterThan(0);
    expect(removed.commits).toBeGreaterThan(0);
    expect(await countRows(t.pool, 'commit_log', 'written_at < now() - interval \'1 second\'', [])).toBe(0);
  });
});
