/**
 * The horizon under a long transaction: while one holds the cluster's xmin, every poll that sees a
 * new commit number keeps it pending; past MAX_PENDING_WITH_TAIL (64) of them the polls leave the
 * tail out (the pending list travels with each tail poll) and use the plain statement. When the
 * transaction ends, that plain poll resolves them all, and tail polls resume.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { CommitTail } from '../src/db/queries/commit-tail.js';
import { createCommitHorizon } from '../src/watch/commit-horizon.js';
import { createMetrics } from '../src/metrics.js';
import { postgresAvailable } from '../../test/support/servers.js';
import { silent, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!up)('the commit horizon while a long transaction runs', () => {
  let t: TestRegistry;
  useFreshRegistry((started) => {
    t = started;
  });

  it('keeps more than 64 numbers pending, then resolves them all with the plain poll once it ends', async () => {
    const horizon = createCommitHorizon({ pool: t.pool, logger: silent, metrics: createMetrics(new Registry()), minPollGapMs: 1, fallbackPollMs: 5 });
    const tails: CommitTail[] = [];
    horizon.readTails({ limit: 20, maxBytes: 1 << 30 }, (tail) => tails.push(tail));
    const unfollow = horizon.follow();
    const nextNumber = async () => BigInt((await t.pool.query<{ n: string }>("SELECT nextval('commit_seq')::text AS n")).rows[0]!.n);
    const holder = await t.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      const first = await nextNumber();
      let last = first;
      // One new number per poll at least (polls back off to 32 ms here): 80 pending numbers.
      for (let i = 0; i < 80; i++) {
        last = await nextNumber();
        horizon.nudge();
        await sleep(40);
      }
      const held = horizon.bound;
      expect(held).toBeLessThan(first);
      await holder.query('COMMIT');
      const deadline = Date.now() + 10_000;
      while (horizon.bound < last && Date.now() < deadline) await sleep(10);
      expect(horizon.bound).toBe(last);
      // The first step past the held bound was a plain poll (80 pending): no tail page starts there.
      expect(tails.filter((tail) => tail.after === held)).toEqual([]);
      // With the list short again, polls read their tail once more.
      const after = await nextNumber();
      while (horizon.bound < after && Date.now() < deadline + 10_000) await sleep(10);
      expect(tails.at(-1)?.through).toBe(after);
    } finally {
      holder.release();
      unfollow();
      horizon.close();
    }
  });
});
