/**
 * The counts' backfill on a real PostgreSQL: a database with events stored before the counts
 * existed gets nothing counted by the migration itself, then every count and last_seen_at right
 * from the pass, a few events per transaction, with events ingested meanwhile counted once; a step
 * killed in its transaction, passes stopped between steps or racing on two replicas, and a walk
 * past events the rollup has not counted yet resume without counting anything twice.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { createBackfill } from '../src/counts/backfill.js';
import { createRollup } from '../src/counts/rollup.js';
import { expectCountsOfEvents, migrateThrough, storeEarlierEvents } from './counts-backfill-support.js';
import { sampleEvent, silent, startRegistry, testPool, unique, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const closing: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

/** A registry on a database whose events were stored under migration 0013, then upgraded. */
async function upgradedWithEarlierEvents(n: number): Promise<TestRegistry> {
  const db = await createTestDatabase();
  closing.push(() => db.drop());
  const pool = testPool(db.url, 2);
  await migrateThrough(pool, 13);
  await storeEarlierEvents(pool, unique('early'), n);
  await pool.end();
  const t = await startRegistry({ databaseUrl: db.url });
  closing.push(() => t.close());
  return t;
}

const rollupOf = (t: TestRegistry, batch: number) =>
  createRollup({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, backfill: { batch, stepsPerPass: 1 } });
const ingest = (t: TestRegistry, device: string, n: number) =>
  t.api.recordEvents(Array.from({ length: n }, (_, i) => sampleEvent({ source: { deviceName: device, objectId: `${device}-${i % 2}` } })));
const cursor = async (t: TestRegistry) => (await t.pool.query<{ c: string | null; done: boolean }>('SELECT counted_through AS c, finished_at IS NOT NULL AS done FROM event_counts_backfill')).rows[0]!;
const running = async (t: TestRegistry) => (await t.metrics.countsBackfillRunning.get()).values[0]?.value;

/** Passes until the backfill is finished and the rollup has counted every commit so far. */
async function finish(rollups: Array<ReturnType<typeof rollupOf>>, t: TestRegistry): Promise<void> {
  const { rows } = await t.pool.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM commit_log');
  for (let i = 0; i < 500; i++) {
    await Promise.all(rollups.map((r) => r.runOnce()));
    const state = await t.pool.query<{ through: string }>('SELECT rolled_through AS through FROM event_rollup_state');
    if ((await cursor(t)).done && BigInt(state.rows[0]!.through) >= BigInt(rows[0]!.last)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the counts pass did not finish');
}

describe.skipIf(!up)('counts backfill: events stored before the counts existed', () => {
  it('are counted by the pass, at most a batch per transaction, with events ingested meanwhile counted once', async () => {
    const t = await upgradedWithEarlierEvents(20);
    // The migration counted nothing itself.
    expect(Number((await t.pool.query('SELECT count(*) AS n FROM event_counts')).rows[0].n)).toBe(0);
    expect((await cursor(t)).done).toBe(false);
    const rollup = rollupOf(t, 3);
    const device = unique('live');
    const cursors = new Set<string | null>();
    let steps = 0;
    for (let i = 0; i < 100 && !(await cursor(t)).done; i++) {
      await ingest(t, device, 2);
      const pass = await rollup.runOnce();
      expect(pass.backfill.events).toBeLessThanOrEqual(3);
      steps += pass.backfill.steps;
      cursors.add((await cursor(t)).c);
      if (!pass.backfill.finished) expect(await running(t)).toBe(1);
    }
    // 20 earlier events (and those ingested with ids in its range) by 3: at least 7 transactions.
    expect(steps).toBeGreaterThanOrEqual(7);
    expect(cursors.size).toBe(steps);
    expect(await running(t)).toBe(0);
    await ingest(t, device, 3);
    await finish([rollup], t);
    await expectCountsOfEvents(t.pool);
  });

  it('resumes after a step killed in its transaction and after passes stopped between steps, on two replicas, counting each event once', async () => {
    const t = await upgradedWithEarlierEvents(40);
    const first = rollupOf(t, 4);
    await first.runOnce();
    first.stop();
    const after = await cursor(t);
    expect(after.c).not.toBeNull();
    expect(after.done).toBe(false);
    // A step waiting on a lock is killed: its transaction ends, nothing of it counted, the cursor unmoved.
    const blocker = new pg.Client({ connectionString: (t.pool as unknown as { options: { connectionString: string } }).options.connectionString });
    await blocker.connect();
    closing.push(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE event_type_counts IN SHARE ROW EXCLUSIVE MODE');
    const killed = rollupOf(t, 4).runOnce();
    for (;;) {
      const { rows } = await blocker.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      if (rows[0] !== undefined) {
        await blocker.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect(killed).rejects.toThrow();
    await blocker.query('ROLLBACK');
    expect(await cursor(t)).toEqual(after);
    // Two replicas from there, with events ingested between their passes.
    const replicas = [rollupOf(t, 4), rollupOf(t, 4)];
    for (let i = 0; i < 2; i++) {
      await ingest(t, unique('live'), 2);
      await Promise.all(replicas.map((r) => r.runOnce()));
    }
    // Events committed but not rolled up yet when the backfill walks past their ids: the rollup's.
    await ingest(t, unique('backlog'), 2);
    expect((await createBackfill({ pool: t.pool, logger: silent, metrics: t.metrics, batch: 4, stepsPerPass: 100 }).run()).finished).toBe(true);
    await finish(replicas, t);
    await expectCountsOfEvents(t.pool);
  });
});
