/**
 * The hot reads (ListEvents, the watch pages) run as prepared statements: Postgres parses and plans
 * each shape once per connection. Seen from the session itself (pg_prepared_statements), on a pool
 * of one connection.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../src/db/migrate.js';
import { commitsBetween, recordsOf } from '../src/db/queries/commit-log.js';
import { listEvents } from '../src/db/queries/list-events.js';
import { statementName } from '../src/db/queries/query.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { silent, testPool } from './helpers.js';

const up = await postgresAvailable();

describe.skipIf(!up)('prepared reads', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = testPool(db.url, 1);
    await runMigrations(pool, silent);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const prepared = async () =>
    (await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'registry-%' ORDER BY name`)).rows.map((r) => r.name);

  it('names one statement per ListEvents shape, and reuses it', async () => {
    await listEvents(pool, { deviceName: 'cam-1', newestFirst: true, limit: 10, maxBytes: 1 << 24 });
    await listEvents(pool, { deviceName: 'cam-2', newestFirst: true, limit: 20, maxBytes: 1 << 20 });
    await listEvents(pool, { domain: 'acme.camera', newestFirst: false, limit: 10, maxBytes: 1 << 24 });
    await listEvents(pool, { deviceName: 'cam-1', newestFirst: true, limit: 10, maxBytes: 1 << 24, after: { us: 1_795_000_000_000_000n, id: '01a21381-ed8f-7c30-a69c-06d9a5475dc5' } });
    const names = (await prepared()).filter((n) => n.startsWith('registry-list-events-'));
    expect(names).toHaveLength(3);
  });

  it('prepares the watch pages: the commit range and the records of each kind', async () => {
    await commitsBetween(pool, 0n, 10n, 20, 4 * 1024 * 1024);
    const commit = { seq: 1n, deviceNames: ['cam-1'], objectIds: ['acme.camera.c1'], types: [{ domain: 'acme.camera', eventType: 'motion' }], eventIds: ['01a21381-ed8f-7c30-a69c-06d9a5475dc5'] };
    const records = await recordsOf(pool, [commit]);
    expect(records.events.size).toBe(0);
    expect(await prepared()).toEqual(expect.arrayContaining(['registry-watch-commits', 'registry-watch-devices', 'registry-watch-event-types', 'registry-watch-events', 'registry-watch-objects']));
  });

  it('derives a name from the text alone', () => {
    expect(statementName('p', 'SELECT 1')).toBe(statementName('p', 'SELECT 1'));
    expect(statementName('p', 'SELECT 1')).not.toBe(statementName('p', 'SELECT 2'));
    expect(statementName('p', 'SELECT 1')).toMatch(/^p-[0-9a-f]{16}$/);
  });
});
