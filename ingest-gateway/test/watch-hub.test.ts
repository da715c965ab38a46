/**
 * The gateway's shared watches over a registry whose streams the test drives: one registry stream
 * per filter however many clients follow it, resumes from the feed's recent changes, catching up
 * on a stream of one's own and moving onto the feed without gap or duplicate, the lag bound, and
 * what ends a feed.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { FellBehindError } from '../src/watch/chunk-queue.js';
import type { RegistryClient } from '../src/clients/registry.js';
import { WatchHub, type WatchQuery } from '../src/watch/watch-hub.js';
import { client, drivenRegistry, query } from './driven-registry.js';

describe('WatchHub: one registry stream per filter', () => {
  it('gives every client of one filter the same frames from ONE registry stream; another filter gets its own', async () => {
    const { streams, hub } = drivenRegistry();
    const a = await client(hub, query());
    const b = await client(hub, query({ kinds: [] }));
    const other = await client(hub, query({ deviceName: 'cam' }));
    expect(streams).toHaveLength(2);
    expect(streams[0]!.query.afterCursor).toBe('');
    streams[0]!.send('c1', 'c2');
    streams[0]!.send('c3');
    expect(await a.until(3)).toEqual(['c1', 'c2', 'c3']);
    expect(await b.until(3)).toEqual(['c1', 'c2', 'c3']);
    expect(b.text()).toMatch(/^: keep-alive\n\nid: c1\nevent: event.created\ndata: \{"id":"e-c1"/);
    expect(other.ids()).toEqual([]);
    a.leave();
    b.leave();
    await Promise.all([a.done, b.done]);
    // The last client of a filter leaving ends its registry stream.
    expect(streams[0]!.signal.aborted).toBe(true);
    expect(streams[1]!.signal.aborted).toBe(false);
    other.leave();
  });

  it('resumes a client from a change the feed holds without a stream of its own', async () => {
    const { streams, hub } = drivenRegistry();
    const a = await client(hub, query());
    streams[0]!.send('c1', 'c2', 'c3');
    await a.until(3);
    const resumed = await client(hub, query({ afterCursor: 'c1' }));
    streams[0]!.send('c4');
    expect(await resumed.until(3)).toEqual(['c2', 'c3', 'c4']);
    expect(streams).toHaveLength(1);
    a.leave();
    resumed.leave();
  });

  it('catches an older cursor up on its own stream, then moves onto the feed: no gap, no duplicate', async () => {
    const { streams, hub } = drivenRegistry();
    const live = await client(hub, query());
    streams[0]!.send('c5', 'c6');
    await live.until(2);
    const old = await client(hub, query({ afterCursor: 'c1' }));
    expect(streams).toHaveLength(2);
    expect(streams[1]!.query.afterCursor).toBe('c1');
    streams[1]!.send('c2', 'c3');
    streams[1]!.send('c4', 'c5');
    // c5 is the feed's: the catching-up stream ends, and what the feed holds after c5 follows.
    expect(await old.until(5)).toEqual(['c2', 'c3', 'c4', 'c5', 'c6']);
    expect(streams[1]!.signal.aborted).toBe(true);
    streams[0]!.send('c7');
    expect(await old.until(6)).toEqual(['c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    live.leave();
    old.leave();
  });


  it('keeps the feed a lone client with an old cursor is catching up to, and moves it on', async () => {
    const { streams, hub } = drivenRegistry();
    const old = await client(hub, query({ afterCursor: 'c1' }));
    expect(streams.map((s) => s.query.afterCursor)).toEqual(['', 'c1']);
    streams[0]!.send('c4');
    await new Promise((r) => setTimeout(r, 20));
    expect(streams[0]!.signal.aborted).toBe(false);
    streams[1]!.send('c2', 'c3', 'c4');
    streams[0]!.send('c5');
    expect(await old.until(4)).toEqual(['c2', 'c3', 'c4', 'c5']);
    expect(streams[1]!.signal.aborted).toBe(true);
    old.leave();
    await old.done;
    expect(streams[0]!.signal.aborted).toBe(true);
  });
});

describe('WatchHub: what ends a client or a feed', () => {
  it('ends a client that falls more than its lag bound behind; the others go on', async () => {
    const { streams, hub } = drivenRegistry();
    const leave = new AbortController();
    const stuck = await hub.subscribe(query(), { requestId: 'r', signal: leave.signal });
    const reader = await client(hub, query());
    for (let i = 0; i < 20; i++) streams[0]!.send(`c${i}`);
    expect(await reader.until(20)).toHaveLength(20);
    await expect(stuck.next()).rejects.toBeInstanceOf(FellBehindError);
    reader.leave();
    leave.abort();
  });

  it('ends every client with the error of its registry stream; the next client opens a new one', async () => {
    const { streams, hub } = drivenRegistry();
    const leave = new AbortController();
    const chunks = await hub.subscribe(query(), { requestId: 'r', signal: leave.signal });
    expect((await chunks.next()).value.toString()).toBe(': keep-alive\n\n');
    streams[0]!.fail(new AppError('FAILED_PRECONDITION', 'after_cursor is older than the retained watch history', {}));
    await expect(chunks.next()).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    const again = await client(hub, query());
    expect(streams).toHaveLength(2);
    again.leave();
  });

  it('rejects with the registry refusal of a filter and keeps no feed for it', async () => {
    const refusal = new AppError('INVALID_ARGUMENT', 'since is not allowed', { field: 'since' });
    const calls: WatchQuery[] = [];
    const refusing = new WatchHub({
      registry: {
        // eslint-disable-next-line require-yield
        watch: async function* (q: WatchQuery) {
          calls.push(q);
          throw refusal;
        },
      } as unknown as RegistryClient,
    });
    await expect(refusing.subscribe(query({ since: { seconds: 1, nanos: 0 } as never }), { requestId: 'r', signal: new AbortController().signal })).rejects.toBe(refusal);
    await expect(refusing.subscribe(query({ since: { seconds: 1, nanos: 0 } as never }), { requestId: 'r', signal: new AbortController().signal })).rejects.toBe(refusal);
    expect(calls).toHaveLength(2);
  });
});

describe('WatchHub: when the registry stream ends', () => {
  it('resumes after its last cursor when the registry stream ends UNAVAILABLE: its clients get every change once and stay connected', async () => {
    const { streams, hub } = drivenRegistry();
    const a = await client(hub, query());
    const b = await client(hub, query());
    streams[0]!.send('c1', 'c2');
    await a.until(2);
    // What a registry connection past its age (or a replica shutting down) does to a stream on it.
    streams[0]!.fail(new AppError('UNAVAILABLE', 'Connection dropped', {}));
    for (const deadline = Date.now() + 10_000; streams.length < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
    expect(streams).toHaveLength(2);
    expect(streams[1]!.query.afterCursor).toBe('c2');
    streams[1]!.send('c3');
    expect(await a.until(3)).toEqual(['c1', 'c2', 'c3']);
    expect(await b.until(3)).toEqual(['c1', 'c2', 'c3']);
    // A client resuming from a change before the new stream still joins the feed without a stream of its own.
    const c = await client(hub, query({ afterCursor: 'c1' }));
    expect(await c.until(2)).toEqual(['c2', 'c3']);
    expect(streams).toHaveLength(2);
    for (const x of [a, b, c]) x.leave();
  });

  it('ends its clients with UNAVAILABLE after three resumes in a row that received nothing', async () => {
    const { streams, hub } = drivenRegistry();
    const leave = new AbortController();
    const chunks = await hub.subscribe(query(), { requestId: 'r', signal: leave.signal });
    expect((await chunks.next()).value.toString()).toBe(': keep-alive\n\n');
    const down = new AppError('UNAVAILABLE', 'a backend service is unavailable', {});
    streams[0]!.fail(down);
    for (let n = 2; n <= 4; n++) {
      for (const deadline = Date.now() + 10_000; streams.length < n && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
      expect(streams).toHaveLength(n);
      streams[n - 1]!.fail(down);
    }
    // Each resumed stream starts with its keep-alive, then fails.
    let result: unknown;
    for (;;) {
      try {
        if ((await chunks.next()).done) break;
      } catch (err) {
        result = err;
        break;
      }
    }
    expect(result).toBe(down);
    expect(streams).toHaveLength(4);
  });
});
