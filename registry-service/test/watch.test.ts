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

/** One change received, or a keep-alive (a response without changes), flattened for assertions. */
type Msg = Partial<registry.WatchChange> & { cursor: string; keepAlive?: true };

/** A response as the list of what it carries, in order. */
const flatten = (m: registry.WatchResponse): Msg[] => (m.changes.length === 0 ? [{ cursor: m.cursor, keepAlive: true }] : m.changes);

interface Watcher {
  messages: Msg[];
  /** Resolves when `predicate` holds for the messages so far (rejects after 10 s). */
  until(predicate: (m: Msg[]) => boolean): Promise<void>;
  stop(): void;
  /** Settles when the stream ends: undefined, or the AppError it ended with. */
  ended: Promise<AppError | undefined>;
}

function watch(t: TestRegistry, request: Partial<registry.WatchRequest> = {}): Watcher {
  const abort = new AbortController();
  const messages: Msg[] = [];
  const checks: Array<() => void> = [];
  const full = { filter: undefined, kinds: [], afterCursor: '', ...request };
  const ended = (async () => {
    try {
      for await (const m of callStream(t.client.watch.bind(t.client), full, { deadlineMs: 60_000, signal: abort.signal })) {
        messages.push(...flatten(m));
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

const eventIds = (messages: Msg[]) => messages.filter((m) => m.event).map((m) => m.event!.id);

/** A cursor's (commit number, position) as one comparable number (test-only knowledge of the format). */
function rankOf(cursor: string): bigint {
  const doc = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { s: string; i: number | 'end' };
  return BigInt(doc.s) * 1_000_000n + (doc.i === 'end' ? 999_999n : BigInt(doc.i));
}

/** A cursor with one field changed (test-only knowledge of the format). */
function editCursor(cursor: string, change: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), ...change })).toString('base64url');
}

const row = (id: string, device: string, objectId: string) => ({
  id,
  objectRef: `acme.camera.lpr.${objectId}`,
  deviceName: device,
  domain: 'acme.camera.lpr',
  eventType: 'plate_detected',
  images: [],
  videoClips: [],
  properties: [],
});

/** One event with its device, object and type, as the write statement takes it. */
const batch = (id: string, device: string, objectId = 'late-1') => ({
  devices: [device],
  objects: [{ id: `acme.camera.lpr.${objectId}`, objectDomain: 'acme.camera.lpr', objectId, objectName: 'n', objectType: 't', deviceName: device }],
  types: [{ domain: 'acme.camera.lpr', eventType: 'plate_detected', displayName: 'd', displayDescription: 'd' }],
  events: [row(id, device, objectId)],
});

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
    const ranks = sequence.map(rankOf);
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]! >= ranks[i - 1]!).toBe(true);
  });

  it('a statement waiting for an in-flight first sighting of its device comes after it, whatever their event ids', async () => {
    const device = unique('late');
    const w = watch(b, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await w.until((m) => m.length >= 1);
    const oldId = uuidv7(Date.now() - 60_000);
    const newId = uuidv7();
    // The transaction holding the older id is in flight (its statement ran, no COMMIT yet)...
    const slow = await a.pool.connect();
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(oldId, device));
    // ...while the newer one's statement runs on the other replica: it must wait, not overtake.
    const fast = insertRecordBatch(b.pool, batch(newId, device));
    await new Promise((r) => setTimeout(r, 400));
    expect(eventIds(w.messages)).not.toContain(newId);
    await slow.query('COMMIT');
    slow.release();
    await fast;
    await w.until((m) => eventIds(m).includes(newId));
    const ids = eventIds(w.messages);
    expect(ids.indexOf(oldId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(oldId)).toBeLessThan(ids.indexOf(newId));
    // A watcher resuming from the keep-alive cursor taken before both gets both, in the same order.
    const resumed = watch(a, { afterCursor: w.messages[0]!.cursor, kinds: [WATCH_KIND_EVENT_CREATED] });
    await resumed.until((m) => eventIds(m).includes(newId));
    expect(eventIds(resumed.messages)).toEqual(ids);
    w.stop();
    resumed.stop();
  });

  it('holds back a commit numbered after one still in flight, then delivers both in number order; a rolled-back one leaves no hole', async () => {
    const w = watch(b, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await w.until((m) => m.length >= 1);
    const [first, second, third] = [uuidv7(), uuidv7(), uuidv7()];
    // The first statement takes its number, then its transaction stays open (a slow commit)...
    const slow = await a.pool.connect();
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(first, unique('slow'), unique('o')));
    // ...while a later statement with nothing in common commits on the other replica: number order and commit order differ.
    await insertRecordBatch(b.pool, batch(second, unique('fast'), unique('o')));
    await new Promise((r) => setTimeout(r, 600));
    expect(eventIds(w.messages)).toEqual([]);
    await slow.query('COMMIT');
    await w.until((m) => eventIds(m).length >= 2);
    expect(eventIds(w.messages)).toEqual([first, second]);
    // A statement that rolls back after taking its number: later commits still arrive, nothing of it does.
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(uuidv7(), unique('gone'), unique('o')));
    await insertRecordBatch(b.pool, batch(third, unique('after'), unique('o')));
    await slow.query('ROLLBACK');
    slow.release();
    await w.until((m) => eventIds(m).length >= 3);
    expect(eventIds(w.messages)).toEqual([first, second, third]);
    w.stop();
  });

  it('never delivers an event before the device.created it refers to, even when its transaction id is the older one', async () => {
    const device = unique('causal');
    const w = watch(a);
    await w.until((m) => m.length >= 1);
    // B takes its transaction id first, then waits for A's uncommitted first sighting of the device.
    const older = await b.pool.connect();
    const newer = await a.pool.connect();
    await older.query('BEGIN');
    await older.query('SELECT pg_current_xact_id()');
    await newer.query('BEGIN');
    const creator = uuidv7();
    await insertRecordBatch(newer, batch(creator, device, unique('o')));
    const follower = uuidv7();
    const waiting = insertRecordBatch(older, batch(follower, device, unique('o')));
    await new Promise((r) => setTimeout(r, 200));
    await newer.query('COMMIT');
    await waiting;
    await older.query('COMMIT');
    newer.release();
    older.release();
    await w.until((m) => eventIds(m).includes(follower));
    const changes = w.messages.filter((m) => !m.keepAlive);
    const at = (test: (m: Msg) => boolean) => changes.findIndex(test);
    const created = at((m) => m.device?.deviceName === device);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(at((m) => m.event?.id === follower));
    expect(at((m) => m.event?.id === creator)).toBeLessThan(at((m) => m.event?.id === follower));
    w.stop();
  });

  it('ends a watcher that stops reading with RESOURCE_EXHAUSTED; it resumes from its last cursor without loss or duplicate', { timeout: 90_000 }, async () => {
    const db2 = await createTestDatabase();
    const c = await startRegistry({ databaseUrl: db2.url, watchMaxStallMs: 1000 });
    try {
      const device = unique('slow-reader');
      const request = { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined }, kinds: [WATCH_KIND_EVENT_CREATED], afterCursor: '' };
      const stream = c.client.watch(request);
      const received: Msg[] = [];
      stream.on('data', (m: registry.WatchResponse) => {
        received.push(...flatten(m));
        if (received.length === 1) stream.pause();
      });
      const ended = new Promise<{ code?: number; details?: string }>((resolve) => stream.on('error', resolve));
      const ids: string[] = [];
      // About 40 MB in messages of up to 256 KB: more than the HTTP/2 windows (16 MiB per connection,
      // http2-window.ts) and the 16 messages the server queues for one stream can hold.
      for (let i = 0; i < 25; i++) {
        const { events } = await c.api.recordEvents(Array.from({ length: 100 }, () => sampleEvent({ source: { deviceName: device }, additionalProperties: [{ key: 'pad', value: 'x'.repeat(16_000) }] })));
        ids.push(...events.map((e) => e!.id));
      }
      // The server gives up on the stalled stream; the client learns it once it reads what it had buffered.
      await new Promise((r) => setTimeout(r, 2500));
      stream.resume();
      const err = await ended;
      expect(err.code).toBe(8); // RESOURCE_EXHAUSTED
      expect(eventIds(received).length).toBeLessThan(ids.length);
      expect(err.details).toMatch(/resume from the last message/);
      // Node may have buffered a few messages before the pause took effect: they count as received.
      const cursor = received.at(-1)!.cursor;
      const seen = eventIds(received);
      const resumed = watch(c, { ...request, afterCursor: cursor });
      await resumed.until((m) => seen.length + eventIds(m).length >= ids.length);
      expect([...seen, ...eventIds(resumed.messages)]).toEqual(ids);
      resumed.stop();
    } finally {
      await c.close();
      await db2.drop();
    }
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
    await a.api.recordEvents([sampleEvent(), sampleEvent()]);
    const listed = await a.api.listEvents({ pageSize: 1 });
    const start = watch(a);
    await start.until((m) => m.length >= 1);
    start.stop();
    const own = start.messages[0]!.cursor;
    const cases: Array<[Partial<registry.WatchRequest>, string]> = [
      [{ afterCursor: 'garbage!' }, 'after_cursor'],
      [{ afterCursor: listed.nextPageToken }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { s: '999999999' }) }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { l: '00000000-0000-4000-8000-000000000000' }) }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { i: -1 }) }, 'after_cursor'],
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
    await c.server.watching.close();
    const err = await w.ended;
    expect(err?.code).toBe('UNAVAILABLE');
    await c.close();
    await db2.drop();
  });
});
