/**
 * Watch over real gRPC servers and PostgreSQL: two registry replicas on one database, concurrent
 * writers, resuming from cursors, commits that finish out of the order their ids were taken, keep-
 * alives, shutdown and bad cursors.
 */
import { AppError, callStream, registry } from '@dynamic-events/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { insertRecordBatch } from '../src/db/queries/record-events.js';
import { uuidv7 } from '../src/domain/uuid-v7.js';
import { sampleEvent, startRegistry, unique, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const { WATCH_KIND_EVENT_CREATED, WATCH_KIND_DEVICE_CREATED } = registry.WatchKind;

interface Watcher {
  messages: registry.WatchResponse[];
  /** Resolves when `predicate` holds for the messages so far (rejects after 10 s). */
  until(predicate: (m: registry.WatchResponse[]) => boolean): Promise<void>;
  stop(): void;
  /** Settles when the stream ends: undefined, or the AppError it ended with. */
  ended: Promise<AppError | undefined>;
}

function watch(t: TestRegistry, request: Partial<registry.WatchRequest> = {}): Watcher {
  const abort = new AbortController();
  const messages: registry.WatchResponse[] = [];
  const checks: Array<() => void> = [];
  const full = { filter: undefined, kinds: [], afterCursor: '', ...request };
  const ended = (async () => {
    try {
      for await (const m of callStream(t.client.watch.bind(t.client), full, { deadlineMs: 60_000, signal: abort.signal })) {
        messages.push(m);
        for (const check of checks) check();
      }
      return undefined;
    } catch (err) {
      return err as AppError;
    } finally {
      for (const check of checks) check();
    }
  })();
  return {
    messages,
    ended,
    stop: () => abort.abort(),
    until: (predicate) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`watch condition not met; ${messages.length} messages`)), 10_000);
        const check = () => {
          if (predicate(messages)) {
            clearTimeout(timer);
            resolve();
          }
        };
        checks.push(check);
        check();
      }),
  };
}

const eventIds = (messages: registry.WatchResponse[]) => messages.filter((m) => m.event).map((m) => m.event!.id);

describe.skipIf(!up)('Watch', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestRegistry;
  let b: TestRegistry;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startRegistry({ databaseUrl: db.url, watchKeepAliveMs: 300 });
    b = await startRegistry({ databaseUrl: db.url, watchKeepAliveMs: 300 });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('starts with a keep-alive, then yields what another replica commits, with the created device first', async () => {
    const w = watch(b);
    await w.until((m) => m.length >= 1);
    expect(w.messages[0]!.keepAlive).toBeDefined();
    const device = unique('cam');
    const { event } = await a.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
    await w.until((m) => eventIds(m).includes(event!.id));
    const changes = w.messages.filter((m) => !m.keepAlive);
    expect(changes[0]).toMatchObject({ kind: WATCH_KIND_DEVICE_CREATED, device: { deviceName: device } });
    expect(changes.at(-1)).toMatchObject({ kind: WATCH_KIND_EVENT_CREATED, event: { id: event!.id, deviceName: device } });
    w.stop();
  });

  it('two replicas, concurrent writers, a watcher that keeps resuming from its last cursor: every event exactly once, cursors in commit order', async () => {
    const device = unique('race');
    const start = watch(a, { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined } });
    await start.until((m) => m.length >= 1);
    let cursor = start.messages[0]!.cursor;
    start.stop();

    const written: string[] = [];
    const writers = (async () => {
      for (let round = 0; round < 6; round++) {
        const calls = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).api.recordEvent(sampleEvent({ source: { deviceName: device } })));
        for (const r of await Promise.all(calls)) written.push(r.event!.id);
      }
    })();
    // Reconnect every few messages, alternating replicas, always from the last cursor received.
    const received: string[] = [];
    const sequence: string[] = [];
    let writersDone = false;
    void writers.then(() => (writersDone = true));
    for (let hop = 0; !writersDone || received.length < written.length; hop++) {
      const w = watch(hop % 2 ? a : b, { afterCursor: cursor, kinds: [WATCH_KIND_EVENT_CREATED] });
      await w.until((m) => m.filter((x) => x.event).length >= 17 || (writersDone && received.length + eventIds(m).length >= written.length)).catch(() => undefined);
      w.stop();
      for (const m of w.messages) {
        if (m.event) received.push(m.event.id);
        sequence.push(m.cursor);
        cursor = m.cursor;
      }
      expect(hop).toBeLessThan(200);
    }
    await writers;
    expect(new Set(received).size).toBe(received.length);
    expect(new Set(received)).toEqual(new Set(written));
    // Cursors name (commit number, position): they must only grow along the way.
    const positions = sequence.map((c) => JSON.parse(Buffer.from(c, 'base64url').toString()).p as [string, string]);
    const rank = (p: [string, string]) => BigInt(p[0]) * 1_000_000n + (p[1] === 'end' ? 999_999n : BigInt(p[1]));
    for (let i = 1; i < positions.length; i++) expect(rank(positions[i]!) >= rank(positions[i - 1]!)).toBe(true);
  });

  it('delivers a commit whose ids were taken before a newer commit, and holds later commits back until an in-flight one commits', async () => {
    const device = unique('late');
    const w = watch(b, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await w.until((m) => m.length >= 1);
    const row = (id: string) => ({ id, objectRef: 'acme.camera.lpr.late-1', deviceName: device, domain: 'acme.camera.lpr', eventType: 'plate_detected', images: [], videoClips: [], properties: [] });
    const batch = (id: string) => ({
      devices: [device],
      objects: [{ id: 'acme.camera.lpr.late-1', objectDomain: 'acme.camera.lpr', objectId: 'late-1', objectName: 'n', objectType: 't', deviceName: device }],
      types: [{ domain: 'acme.camera.lpr', eventType: 'plate_detected', displayName: 'd', displayDescription: 'd' }],
      events: [row(id)],
    });
    const oldId = uuidv7(Date.now() - 60_000);
    const newId = uuidv7();
    // The transaction holding the older id is in flight (its statement ran, no COMMIT yet)...
    const slow = await a.pool.connect();
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(oldId));
    // ...while the newer one's statement runs on the other replica: it must wait, not overtake.
    const fast = insertRecordBatch(b.pool, batch(newId));
    await new Promise((r) => setTimeout(r, 400));
    expect(eventIds(w.messages)).not.toContain(newId);
    await slow.query('COMMIT');
    slow.release();
    await fast;
    await w.until((m) => eventIds(m).includes(newId));
    const ids = eventIds(w.messages);
    expect(ids.indexOf(oldId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(oldId)).toBeLessThan(ids.indexOf(newId));
    // A watcher resuming from the keep-alive cursor taken before both gets both, in commit order.
    const resumed = watch(a, { afterCursor: w.messages[0]!.cursor, kinds: [WATCH_KIND_EVENT_CREATED] });
    await resumed.until((m) => eventIds(m).includes(newId));
    expect(eventIds(resumed.messages)).toEqual(ids);
    w.stop();
    resumed.stop();
  });

  it('a watcher that fell 1,000 events behind catches up from its cursor page by page, without loss or duplicate', async () => {
    const device = unique('behind');
    const onlyDevice = { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined }, kinds: [WATCH_KIND_EVENT_CREATED] };
    const first = watch(a, onlyDevice);
    await first.until((m) => m.length >= 1);
    first.stop();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { events } = await b.api.recordEvents(Array.from({ length: 100 }, () => sampleEvent({ source: { deviceName: device }, additionalProperties: [{ key: 'pad', value: 'x'.repeat(4000) }] })));
      ids.push(...events.map((e) => e!.id));
    }
    const w = watch(a, { ...onlyDevice, afterCursor: first.messages[0]!.cursor });
    await w.until((m) => eventIds(m).length >= ids.length);
    expect(eventIds(w.messages)).toEqual(ids);
    w.stop();
  });

  it('sends keep-alives while nothing matches, each carrying a cursor to resume from', async () => {
    const w = watch(a, { filter: { deviceName: unique('nobody'), object: '', domain: '', eventType: '', since: undefined, until: undefined } });
    await w.until((m) => m.filter((x) => x.keepAlive).length >= 3);
    expect(w.messages.every((m) => m.keepAlive && m.cursor !== '')).toBe(true);
    w.stop();
  });

  it('refuses bad cursors, kinds and filters with INVALID_ARGUMENT naming the field', async () => {
    const listed = await a.api.listEvents({ pageSize: 1 });
    const ahead = Buffer.from(JSON.stringify({ v: 1, k: 'watch', s: 'commit-log-v1', p: ['999999999', 'end'] })).toString('base64url');
    const cases: Array<[Partial<registry.WatchRequest>, string]> = [
      [{ afterCursor: 'garbage!' }, 'after_cursor'],
      [{ afterCursor: listed.nextPageToken }, 'after_cursor'],
      [{ afterCursor: ahead }, 'after_cursor'],
      [{ kinds: [0] }, 'kinds'],
      [{ filter: { deviceName: '', object: '', domain: '', eventType: '', since: { seconds: '1', nanos: 0 }, until: undefined } }, 'since'],
    ];
    for (const [request, field] of cases) {
      const err = await watch(a, request).ended;
      expect(err?.code, field).toBe('INVALID_ARGUMENT');
      expect(err?.details.field).toBe(field);
    }
  });

  it('ends open watches with UNAVAILABLE when the feed closes (shutdown), so clients resume elsewhere', async () => {
    const db2 = await createTestDatabase();
    const c = await startRegistry({ databaseUrl: db2.url });
    const w = watch(c);
    await w.until((m) => m.length >= 1);
    c.server.feed.close();
    const err = await w.ended;
    expect(err?.code).toBe('UNAVAILABLE');
    await c.close();
    await db2.drop();
  });
});
