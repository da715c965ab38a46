/**
 * For the enclosing describe: the whole stack (as `npm start` runs it) on a fresh database of the
 * machine's PostgreSQL, with a SQL client on that database to check what was stored. Started in
 * beforeAll; stopped (exit 0 expected), the database dropped and DATA_DIR removed in afterAll.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, tempDir } from './servers.js';
import { startStack, type Stack } from './stack.js';

export interface FreshStack {
  stack: Stack;
  /** `${stack.api}/dynamic-events` */
  url: string;
  sql: pg.Client;
  dataDir: string;
}

export function useStackOnFreshDatabase(label: string, env: Record<string, string> = {}): FreshStack {
  const ctx = {} as FreshStack;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let dir: ReturnType<typeof tempDir> | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    dir = tempDir(label);
    ctx.dataDir = dir.path;
    ctx.stack = await startStack({ dataDir: dir.path, env: { DATABASE_URL: db.url, ...env } });
    ctx.url = `${ctx.stack.api}/dynamic-events`;
    ctx.sql = new pg.Client({ connectionString: db.url });
    await ctx.sql.connect();
  });
  afterAll(async () => {
    await ctx.sql?.end().catch(() => {});
    const result = await ctx.stack?.stop('SIGTERM');
    await db?.drop();
    dir?.remove();
    expect(result?.code).toBe(0);
  });
  return ctx;
}
