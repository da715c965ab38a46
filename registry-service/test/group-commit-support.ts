/** Shared helpers of the group-commit*.test.ts files: UUID v7 checks, statement counting and test-only triggers. */
import type pg from 'pg';
import { vi } from 'vitest';

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds in a UUID v7's first 48 bits. */
export const millisOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the statements that insert events, from now until `stop()` (the spy is removed then). */
export function countEventInserts(pool: pg.Pool) {
  const spy = vi.spyOn(pool, 'query');
  const count = () =>
    spy.mock.calls.filter(([config]) => (typeof config === 'string' ? config : (config as { text?: string }).text ?? '').includes('INSERT INTO events')).length;
  return { count, stop: () => spy.mockRestore() };
}

/** Creates `fn` as a BEFORE INSERT trigger function on events (test-only SQL), dropped by the returned function. */
/** Creates `fn` as a BEFORE INSERT trigger function on events (test-only SQL), dropped by the returned function. */
export async function eventTrigger(pool: pg.Pool, name: string, body: string, args: string[] = []): Promise<() => Promise<void>> {
  await pool.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NEW; END $$`);
  const quoted = args.map((a) => `'${a.replace(/'/g, "''")}'`).join(', ');
  await pool.query(`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${name}(${quoted})`);
  return async () => {
    await pool.query(`DROP TRIGGER IF EXISTS ${name} ON events`);
    await pool.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}
