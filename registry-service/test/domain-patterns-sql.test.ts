/**
 * Domain patterns in SQL (db/queries/domain-scope.ts) against domainAllowed, the one matcher of
 * @dynamic-events/proto, on the machine's PostgreSQL: generated domains (with `_`, `%`, `\`, empty
 * labels, upper case: what an object_domain may hold) and generated well-formed patterns (labels
 * with `_` and `-`, which a LIKE translation would take for wildcards) must match alike, both as the
 * predicate on a column and as the domains a scope selects from event_types.
 */
import { domainAllowed } from '@dynamic-events/proto';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { runMigrations } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { domainMatchSql, domainScopeOf, scopeDomainsSql } from '../src/db/queries/domain-scope.js';
import { silent } from './helpers.js';

const up = await postgresAvailable();

/** Labels that differ only where a LIKE wildcard (`_`) or a prefix would blur them. */
const label = fc.constantFrom('a', 'b', 'ab', 'a_b', 'axb', 'a-b', '_', 'x_');
const pattern = fc.oneof(
  { weight: 1, arbitrary: fc.constant('*') },
  { weight: 8, arbitrary: fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([labels, below]) => labels.join('.') + (below ? '.*' : '')) },
);
/** Domains over an alphabet that holds every character the patterns treat specially, and more. */
const domain = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', '_', '-', '.', '%', '\\', 'A', 'é'), minLength: 1, maxLength: 9 }),
  fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '.', '..', '.a.', '..b')).map(([labels, tail]) => labels.join('.') + tail),
);

let pool: pg.Pool;
let drop = async () => {};
beforeAll(async () => {
  if (!up) return;
  const db = await createTestDatabase();
  drop = db.drop;
  pool = createPool({ connectionString: db.url, max: 2, logger: silent, connectionTimeoutMs: 2000 });
  await runMigrations(pool, silent);
});
afterAll(async () => {
  await pool?.end();
  await drop();
});

/** The domains of `domains` that the SQL predicate matches, for `patterns`. */
async function matchedBySql(patterns: string[], domains: string[]): Promise<string[]> {
  const scope = domainScopeOf(patterns);
  if (scope === undefined) return domains;
  const { rows } = await pool.query<{ d: string }>(`SELECT d FROM unnest($1::text[]) AS u(d) WHERE ${domainMatchSql('d', '$2', '$3')}`, [domains, scope.exact, scope.parents]);
  return rows.map((r) => r.d);
}

describe.skipIf(!up)('domain patterns in SQL match as domainAllowed does', () => {
  it('as a predicate: every generated domain and pattern list', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pattern, { maxLength: 4 }), fc.uniqueArray(domain, { minLength: 1, maxLength: 30 }), async (patterns, domains) => {
        const expected = domains.filter((d) => domainAllowed(patterns, d));
        expect((await matchedBySql(patterns, domains)).sort()).toEqual(expected.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('as the domains a scope selects from the stored event types', async () => {
    const stored = fc.sample(fc.uniqueArray(domain, { minLength: 200, maxLength: 200 }), { numRuns: 1, seed: 31 })[0]!;
    await pool.query(`INSERT INTO event_types (domain, event_type, display_name, display_description) SELECT d, 't', 'T', '' FROM unnest($1::text[]) AS u(d)`, [stored]);
    await fc.assert(
      fc.asyncProperty(fc.array(pattern.filter((p) => p !== '*'), { maxLength: 4 }), async (patterns) => {
        const scope = domainScopeOf(patterns)!;
        const { rows } = await pool.query<{ scope_domain: string }>(`SELECT scope_domain FROM ${scopeDomainsSql('$1', '$2')}`, [scope.exact, scope.parents]);
        // Exact domains are taken as given (stored or not); the rest come from the event types.
        const expected = new Set([...scope.exact, ...stored.filter((d) => domainAllowed(patterns, d))]);
        expect(rows.map((r) => r.scope_domain).sort()).toEqual([...expected].sort());
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the edges of ".*": not the parent, not a sibling sharing its prefix, no empty label, "_" not a wildcard', async () => {
    const domains = ['a.b', 'a.bc', 'a.b.c', 'a.b.c.d', 'a.b.', 'a.b..c', 'a.b.c.', 'a_b.c', 'axb.c', 'a%b.c'];
    expect(await matchedBySql(['a.b.*'], domains)).toEqual(['a.b.c', 'a.b.c.d']);
    expect(await matchedBySql(['a_b.*'], domains)).toEqual(['a_b.c']);
    expect(await matchedBySql(['a.b'], domains)).toEqual(['a.b']);
    expect(await matchedBySql([], domains)).toEqual([]);
  });
});
