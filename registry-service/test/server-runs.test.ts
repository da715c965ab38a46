/**
 * Server runs (server-runs.ts): every new connection is tagged with the run of the server it reached
 * before the pool hands it out, so the tag's query never runs beside its first caller's (pg queues
 * a second query on a busy client and warns that pg 9 drops the queue); a new run cuts the others.
 */
import { describe, expect, it } from 'vitest';
import { createPool } from '../src/db/pool.js';
import { createServerRuns } from '../src/db/server-runs.js';
import { POSTGRES_URL, postgresAvailable } from '../../test/support/servers.js';
import { silent } from './helpers.js';

const up = await postgresAvailable();

/** The process warnings emitted while `work` runs. */
async function warningsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
  process.on('warning', listen);
  try {
    await work();
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

describe.skipIf(!up)('connections tagged with the server run', () => {
  it('tags a connection before its first caller queries it: no query waits behind the tag on a busy client', async () => {
    const runs = createServerRuns(silent);
    const pool = createPool({ connectionString: POSTGRES_URL, max: 4, logger: silent, connections: runs });
    try {
      const warnings = await warningsDuring(() => Promise.all(Array.from({ length: 12 }, () => pool.query('SELECT 1'))));
      expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('cuts the connections of an earlier run once a new run is seen; the pool opens fresh ones', async () => {
    const runs = createServerRuns(silent);
    const pool = createPool({ connectionString: POSTGRES_URL, max: 2, logger: silent, connections: runs });
    try {
      const pids = async () => new Set(await Promise.all([0, 1].map(async () => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')).rows[0]!.pid)));
      const before = await pids();
      expect(before.size).toBe(2);
      runs.observed('a run that is not this server');
      // The cut connections leave the pool; the next queries get new ones, on new backends.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await pids();
      for (const pid of after) expect(before.has(pid)).toBe(false);
    } finally {
      await pool.end();
    }
  });
});
