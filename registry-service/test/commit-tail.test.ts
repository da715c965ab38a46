/**
 * The horizon poll that also reads what became readable (commit-tail.ts): the same commits and
 * event records as the separate reads it replaces, an events lookup by primary key whatever plan
 * the prepared statement settles on, and watchers at the tail served from it.
 */
import { describe, expect, it } from 'vitest';
import { commitsBetween, recordsOf } from '../src/db/queries/commit-log.js';
import { pollHorizonWithTail, type PendingNumber } from '../src/db/queries/commit-tail.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, type TestRegistry } from './helpers.js';
import { eventIds, useTwoReplicas, watch, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();

/**
 * Polls until the bound passes every number handed out so far: two polls when nothing else runs.
 * Other test files share the cluster, and any transaction of theirs still open holds the bound
 * back (as documented), so the polls go on for up to 10 s, 10 ms apart.
 */
async function pollUntilCaughtUp(t: TestRegistry, after: bigint) {
  const pending: PendingNumber[] = [];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const poll = await pollHorizonWithTail(t.pool, pending.at(-1)?.n ?? after, after, pending, 1000, 1 << 30);
    if (poll.tail.through > after) return poll;
    if (poll.xid !== undefined) pending.push({ n: poll.n, xid: poll.xid });
  }
  throw new Error('the horizon did not move in 10 s');
}

describe.skipIf(!up)('the horizon poll with its tail', () => {
  let a: TestRegistry;
  useTwoReplicas((first) => {
    a = first;
  });

  it('returns the commits that became readable and their events, as the separate reads do', async () => {
    const { rows } = await a.pool.query<{ n: string }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM commit_seq');
    const after = BigInt(rows[0]!.n);
    const device = unique('tail');
    for (let i = 0; i < 3; i++) await a.api.recordEvents([sampleEvent({ source: { deviceName: device } }), sampleEvent({ source: { deviceName: device, objectId: `o-${i}` } })]);
    const { tail } = await pollUntilCaughtUp(a, after);
    const { commits } = await commitsBetween(a.pool, after, tail.through, 1000, 1 << 30);
    expect(tail.commits).toEqual(commits);
    expect(tail.commits.length).toBe(3);
    const records = await recordsOf(a.pool, commits);
    expect(tail.events).toEqual(records.events);
    expect(tail.events.size).toBe(6);
  });

  it('never scans the events table: its plan, made while the table was small, still looks events up by key once it grew', async () => {
    const client = await a.pool.connect();
    // This connection's own sequential scans of events not yet flushed: pg_stat_xact_user_tables counts
    // this backend alone (pg_stat_user_tables also counts the registries' own work, flushed whenever
    // they are), and a backend flushes only when idle outside a transaction block.
    const ownSeqScans = async () => {
      const { rows } = await client.query<{ n: string }>("SELECT seq_scan AS n FROM pg_stat_xact_user_tables WHERE relname = 'events'");
      return Number(rows[0]!.n);
    };
    const polls = async (times: number) => {
      for (let i = 0; i < times; i++) {
        await a.api.recordEvents([sampleEvent({ source: { deviceName: unique('plan') } }), sampleEvent({ source: { deviceName: unique('plan') } })]);
        const { rows } = await client.query<{ n: string }>('SELECT last_value AS n FROM commit_seq');
        const n = BigInt(rows[0]!.n);
        // A pending number whose transaction id is long gone: the poll resolves it and reads the last two commits.
        const poll = await pollHorizonWithTail(client, n, n - 2n, [{ n, xid: 1n }], 20, 1 << 30);
        expect(poll.tail.events.size).toBe(4);
      }
    };
    try {
      await polls(8); // past the five custom plans: the statement's generic plan is made on a small table
      await client.query(`INSERT INTO events SELECT (jsonb_populate_record(e, jsonb_build_object('id', gen_random_uuid()))).* FROM events e, generate_series(1, 300)`);
      await client.query('ANALYZE events');
      // Read committed: each poll still sees the commits the registry makes meanwhile.
      await client.query('BEGIN');
      const before = await ownSeqScans();
      await polls(8);
      expect(await ownSeqScans()).toBe(before);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('serves a watcher at the tail from the poll, not from reads of its own', async () => {
    const device = unique('served');
    const filter = { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined };
    const watcher = watch(a, { filter, kinds: [WATCH_KIND_EVENT_CREATED] });
    await watcher.until((m) => m.length >= 1);
    const pages = async (source: string) => (await a.metrics.watchPages.get()).values.find((v) => v.labels.source === source)?.value ?? 0;
    const [horizonBefore, readBefore] = [await pages('horizon'), await pages('read')];
    for (let i = 0; i < 10; i++) await a.api.recordEvents([sampleEvent({ source: { deviceName: device } })]);
    await watcher.until((m) => eventIds(m).length >= 10);
    watcher.stop();
    // A watcher keeping up reads from the horizon's pages; it reads on its own only when it fell a step behind.
    const fromHorizon = (await pages('horizon')) - horizonBefore;
    expect(fromHorizon).toBeGreaterThan(0);
    expect((await pages('read')) - readBefore).toBeLessThan(fromHorizon);
  });
});
