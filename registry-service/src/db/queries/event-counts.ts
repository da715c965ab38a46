import type { Queryable } from '../pool.js';
import { domainMatchSql, type DomainScope } from './domain-scope.js';
import { micros, query, timestampFromMicros } from './query.js';

/*
 * Reads of the counts the rollup pass keeps (migration 0014): event_counts per bucket and (device,
 * domain, event type), event_type_counts per bucket and (domain, event type). A caller picks the
 * table: event_type_counts holds far fewer rows, but knows no device.
 */

/** A bucket width as stored in the width column. */
export type CountWidth = 'minute' | 'hour' | 'day';
export type CountTable = 'event_counts' | 'event_type_counts';
/** What a group is: a column both tables have, except device_name (event_counts only). */
export type CountKey = 'event_type' | 'domain' | 'device_name';

/** The filters the counts can answer; absent members do not filter. */
export interface CountFilter {
  deviceName?: string;
  domain?: string;
  eventType?: string;
  scope?: DomainScope;
}

/** A range of bucket starts [fromUs, toUs) of one width. */
export interface WidthRange {
  width: CountWidth;
  fromUs: bigint;
  toUs: bigint;
}

/** Positional parameters in the order their placeholders are handed out. */
function createParams() {
  const values: unknown[] = [];
  return { values, add: (value: unknown): string => `$${values.push(value)}` };
}

/** The WHERE conditions of a filter on the columns of alias `c`. */
function filterSql(filter: CountFilter, add: (value: unknown) => string): string {
  const conditions: string[] = [];
  if (filter.deviceName !== undefined) conditions.push(`c.device_name = ${add(filter.deviceName)}`);
  if (filter.domain !== undefined) conditions.push(`c.domain = ${add(filter.domain)}`);
  if (filter.eventType !== undefined) conditions.push(`c.event_type = ${add(filter.eventType)}`);
  if (filter.scope !== undefined) conditions.push(domainMatchSql('c.domain', add(filter.scope.exact), add(filter.scope.parents)));
  return conditions.map((c) => ` AND ${c}`).join('');
}

/** Events per bucket start (microseconds) of `range`; buckets without events are absent. */
export async function bucketTotals(db: Queryable, table: CountTable, range: WidthRange, filter: CountFilter): Promise<Map<bigint, bigint>> {
  const p = createParams();
  const rows = await query<{ start_us: string; n: string }>(
    db,
    `SELECT ${micros('c.start')} AS start_us, sum(c.n)::int8 AS n FROM ${table} c
     WHERE c.width = ${p.add(range.width)} AND c.start >= ${p.add(timestampFromMicros(range.fromUs))} AND c.start < ${p.add(timestampFromMicros(range.toUs))}${filterSql(filter, p.add)}
     GROUP BY c.start`,
    p.values,
  );
  return new Map(rows.map((r) => [BigInt(r.start_us), BigInt(r.n)]));
}

/**
 * The `limit` largest groups over the ranges (together one time range, covered by the coarsest
 * buckets that fit: a month is read as days, not as 43,200 minutes), largest first, ties by name.
 * One index range scan per range, joined by UNION ALL: joined to an unnest of the ranges instead,
 * the planner cannot use a range's bounds in an index condition and scans the whole table.
 */
export async function largestGroups(db: Queryable, table: CountTable, key: CountKey, ranges: WidthRange[], filter: CountFilter, limit: number): Promise<string[]> {
  if (ranges.length === 0) return [];
  const p = createParams();
  const parts = ranges.map(
    (r) => `SELECT c.${key} AS k, c.n FROM ${table} c
     WHERE c.width = ${p.add(r.width)} AND c.start >= ${p.add(timestampFromMicros(r.fromUs))} AND c.start < ${p.add(timestampFromMicros(r.toUs))}${filterSql(filter, p.add)}`,
  );
  const rows = await query<{ k: string }>(
    db,
    `SELECT g.k FROM (${parts.join('\n     UNION ALL ')}) AS g GROUP BY g.k ORDER BY sum(g.n) DESC, g.k LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows.map((r) => r.k);
}

/** Events per bucket start and group, for the groups `keys` only. */
export async function groupSeries(db: Queryable, table: CountTable, key: CountKey, range: WidthRange, filter: CountFilter, keys: string[]): Promise<Array<{ startUs: bigint; key: string; n: bigint }>> {
  if (keys.length === 0) return [];
  const p = createParams();
  const rows = await query<{ start_us: string; k: string; n: string }>(
    db,
    `SELECT ${micros('c.start')} AS start_us, c.${key} AS k, sum(c.n)::int8 AS n FROM ${table} c
     WHERE c.width = ${p.add(range.width)} AND c.start >= ${p.add(timestampFromMicros(range.fromUs))} AND c.start < ${p.add(timestampFromMicros(range.toUs))}
       AND c.${key} = ANY(${p.add(keys)}::text[])${filterSql(filter, p.add)}
     GROUP BY c.start, c.${key}`,
    p.values,
  );
  return rows.map((r) => ({ startUs: BigInt(r.start_us), key: r.k, n: BigInt(r.n) }));
}
