/**
 * Watchers behind the tail share a bounded number of page slots (page-slots.ts): watchers resuming
 * from many different old cursors whose clients read nothing hold at most that many pages between
 * them, the others wait holding nothing (sending keep-alives), and a watcher at the tail is served
 * meanwhile. Real PostgreSQL; the watch generators are driven directly, as the gRPC edge drives them.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommitFeed, type CommitFeed } from '../src/watch/commit-feed.js';
import { createCommitHorizon } from '../src/watch/commit-horizon.js';
import { createPageSlots, type PageSlots } from '../src/watch/page-slots.js';
import { createWatch, type WatchMessage } from '../src/watch/watch.js';
import { encodeCursor } from '../src/watch/watch-cursor.js';
import { lastCommitSeq } from '../src/db/queries/commit-log.js';
import { createMetrics } from '../src/metrics.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, silent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const pending = Symbol('pending');
const within = <T>(promise: Promise<T>, ms: number): Promise<T | typeof pending> => Promise.race([promise, new Promise<typeof pending>((resolve) => setTimeout(() => resolve(pending), ms))]);
const noFilter = { deviceName: '', object: '', domain: '', eventType: '', sinceUs: undefined, untilUs: undefined, tokenId: '', domainPatterns: undefined };

const blob = (i: number) => Array.from({ length: 7 }, (_, k) => ({ key: `b${k}`, value: `${i}-${k}-`.padEnd(15_000, 'x') }));

/** A watcher whose client takes messages only when the test pulls: `next` resolves with the first message carrying changes. */
function watcher(feed: CommitFeed, afterCursor: string, keepAliveMs = 10_000) {
  const abort = new AbortController();
  const stream = createWatch(feed, { keepAliveMs })({ filter: noFilter, kinds: [], afterCursor }, abort.signal);
  const next = async (): Promise<WatchMessage | undefined> => {
    for (;;) {
      const { value, done } = await stream.next();
      if (done) return undefined;
      if (value.changes.length > 0) return value;
    }
  };
  return { stream, next, stop: () => (abort.abort(), stream.return(undefined)) };
}

/**
 * Six ~100 kB commits written while nobody follows the horizon, then a reading watcher at the
 * tail, which receives a small marker commit. The horizon's pages start at the bound before the
 * six and at the marker, so no watcher resuming after the first of the six reads one of them.
 */
async function history(t: TestRegistry, feed: CommitFeed, label: string) {
  const logId = await feed.logId();
  const after = await lastCommitSeq(t.pool);
  const device = unique(label);
  for (let i = 0; i < 6; i++) await t.api.recordEvents([sampleEvent({ source: { deviceName: device }, additionalProperties: blob(i) })]);
  const live = watcher(feed, '');
  // Its first message says where it starts: only commits after that reach it.
  await live.stream.next();
  const seen: string[] = [];
  const pump = (async () => {
    for (let m = await live.next(); m; m = await live.next()) seen.push(...m.changes.flatMap((c) => (c.change.kind === 'event' ? [c.change.event.deviceName] : [])));
  })();
  const post = async (name: string) => {
    await t.api.recordEvents([sampleEvent({ source: { deviceName: name } })]);
    for (const deadline = Date.now() + 5000; !seen.includes(name) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    return seen.includes(name);
  };
  expect(await post(`${device}-marker`)).toBe(true);
  const at = (n: bigint) => encodeCursor(logId, { seq: after + n, index: 'end' });
  return { at, post, device, stop: async () => (await live.stop(), await pump) };
}

describe.skipIf(!up)('watchers behind the tail share the page slots', () => {
  let t: TestRegistry;
  let feed: CommitFeed;
  let slots: PageSlots;
  useFreshRegistry((started) => {
    t = started;
  });
  beforeAll(() => {
    const horizon = createCommitHorizon({ pool: t.pool, logger: silent, metrics: createMetrics(new Registry()), fallbackPollMs: 50 });
    slots = createPageSlots(2);
    // Pages of one ~100 kB event each.
    feed = createCommitFeed({ pool: t.pool, horizon, pageBytes: 50_000, slots });
  });
  afterAll(() => feed.close());

  it('holds at most its slots of pages for watchers that stopped reading, serves the tail meanwhile, and lets the rest in as slots free', { timeout: 30_000 }, async () => {
    const h = await history(t, feed, 'slots');
    expect(slots.held).toBe(0);
    // Four watchers, each resuming at a different commit: four different pages.
    const behind = [1n, 2n, 3n, 4n].map((n) => watcher(feed, h.at(n)));
    const firsts = behind.map((w) => w.next());
    const settled = await Promise.all(firsts.map((first) => within(first, 1500)));
    expect(settled.filter((m) => m !== pending)).toHaveLength(2);
    expect(slots.held).toBe(2);

    // The watcher at the tail is served while the slots are taken.
    expect(await h.post(`${h.device}-live`)).toBe(true);
    await h.stop();

    // The two holders go (their streams ended): the two waiting watchers get their pages.
    for (const w of behind.filter((_, i) => settled[i] !== pending)) await w.stop();
    const rest = firsts.filter((_, i) => settled[i] === pending);
    expect(await Promise.all(rest.map((first) => within(first, 5000)))).not.toContain(pending);
    for (const w of behind) await w.stop();
    expect(slots.held).toBe(0);
  });

  it('sends keep-alives to a watcher waiting for a slot', { timeout: 20_000 }, async () => {
    const h = await history(t, feed, 'keep');
    await h.stop();
    const holders = [1n, 2n].map((n) => watcher(feed, h.at(n)));
    for (const w of holders) expect(await within(w.next(), 5000)).not.toBe(pending);
    const waiting = watcher(feed, h.at(3n), 200);
    // The first message (the acknowledgement), then a keep-alive while no slot frees.
    const messages = [await within(waiting.stream.next(), 5000), await within(waiting.stream.next(), 5000)];
    expect(messages.map((m) => (typeof m === 'symbol' ? 'pending' : m.value?.changes.length))).toEqual([0, 0]);
    expect(slots.held).toBe(2);
    for (const w of [...holders, waiting]) await w.stop();
  });
});
