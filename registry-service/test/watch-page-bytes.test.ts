/**
 * Watch pages stop at a byte bound in both reads that make them: a catch-up read (commitsBetween)
 * and the horizon's tail (pollHorizonWithTail). A horizon that stood still while large events were
 * written (nobody followed it) reads a page's worth of them at its next poll, not `limit` commits of
 * up to 16 MiB events; commits logged before commit_log.event_bytes are sized from their events.
 */
import { describe, expect, it } from 'vitest';
import { commitsBetween, lastCommitSeq } from '../src/db/queries/commit-log.js';
import { pollHorizonWithTail } from '../src/db/queries/commit-tail.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventIds, watch, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();
const UNLIMITED = 1 << 30;

/** Properties of `bytes` characters in all, in values of at most 16,000 (the limit is 16,384). */
const blob = (i: number, bytes: number) =>
  Array.from({ length: Math.ceil(bytes / 16_000) }, (_, k) => ({ key: `blob${k}`, value: `${i}-${k}-`.padEnd(Math.min(16_000, bytes - k * 16_000), 'x') }));

describe.skipIf(!up)('watch pages cut by the bytes of their events', () => {
  let t: TestRegistry;
  useFreshRegistry((started) => {
    t = started;
  });

  /** `count` commits of one event carrying about `bytes` characters each; the commit numbers around them. */
  async function writeCommits(count: number, bytes: number) {
    const after = await lastCommitSeq(t.pool);
    const device = unique('page-bytes');
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { events } = await t.api.recordEvents([sampleEvent({ source: { deviceName: device }, additionalProperties: blob(i, bytes) })]);
      ids.push(events[0]!.id);
    }
    return { after, through: await lastCommitSeq(t.pool), ids };
  }

  /** The tail of a poll that resolves every number up to `through` (a pending number whose transaction is long gone). */
  const tailOf = async (after: bigint, through: bigint, limit: number, maxBytes: number) =>
    (await pollHorizonWithTail(t.pool, through, after, [{ n: through, xid: 1n }], limit, maxBytes)).tail;

  it('stops a catch-up read at the commit that passes the bound; the first commit always comes', async () => {
    const { after, through } = await writeCommits(5, 100_000);
    const all = await commitsBetween(t.pool, after, through, 20, UNLIMITED);
    expect([all.commits.length, all.cut]).toEqual([5, false]);
    const cut = await commitsBetween(t.pool, after, through, 20, 250_000);
    expect(cut.commits.map((c) => c.seq)).toEqual(all.commits.slice(0, 2).map((c) => c.seq));
    expect(cut.cut).toBe(true);
    const first = await commitsBetween(t.pool, after, through, 20, 1);
    expect([first.commits.length, first.cut]).toEqual([1, true]);
    // The commit limit alone is no cut: the caller knows it read `limit` commits.
    const limited = await commitsBetween(t.pool, after, through, 3, UNLIMITED);
    expect([limited.commits.length, limited.cut]).toEqual([3, false]);
  });

  it('stops the horizon tail the same way, and reads only the events of the commits it keeps', async () => {
    const { after, through, ids } = await writeCommits(5, 100_000);
    const whole = await tailOf(after, through, 20, UNLIMITED);
    expect([whole.commits.length, whole.cut, whole.events.size]).toEqual([5, false, 5]);
    const tail = await tailOf(after, through, 20, 250_000);
    expect(tail.through).toBe(through);
    expect(tail.cut).toBe(true);
    expect(tail.commits.flatMap((c) => c.eventIds)).toEqual(ids.slice(0, 2));
    expect([...tail.events.keys()].sort()).toEqual(ids.slice(0, 2).sort());
  });

  it('sizes commits logged without event_bytes from their events', async () => {
    const { after, through } = await writeCommits(4, 100_000);
    await t.pool.query('UPDATE commit_log SET event_bytes = NULL WHERE seq > $1 AND seq <= $2', [after.toString(), through.toString()]);
    const cut = await commitsBetween(t.pool, after, through, 20, 250_000);
    expect([cut.commits.length, cut.cut]).toEqual([2, true]);
    const tail = await tailOf(after, through, 20, 250_000);
    expect([tail.commits.length, tail.cut, tail.events.size]).toEqual([2, true, 2]);
  });

  it('logs the size of what each write statement received', async () => {
    const { after, through } = await writeCommits(2, 50_000);
    const { rows } = await t.pool.query<{ bytes: string }>('SELECT event_bytes AS bytes FROM commit_log WHERE seq > $1 AND seq <= $2 ORDER BY seq', [after.toString(), through.toString()]);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Number(row.bytes)).toBeGreaterThan(50_000);
    for (const row of rows) expect(Number(row.bytes)).toBeLessThan(51_000);
  });

  it('delivers every event, in order, to a watcher resuming over commits larger than a page while the horizon stood still', { timeout: 60_000 }, async () => {
    const before = watch(t, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await before.until((m) => m.length >= 1);
    const cursor = before.messages[0]!.cursor;
    before.stop();
    // 1.5 MB events: a 4 MiB page holds two of them, so the first poll's tail is cut.
    const { ids } = await writeCommits(6, 1_500_000);
    const resumed = watch(t, { kinds: [WATCH_KIND_EVENT_CREATED], afterCursor: cursor });
    await resumed.until((m) => eventIds(m).length >= 6);
    resumed.stop();
    expect(eventIds(resumed.messages)).toEqual(ids);
  });
});
