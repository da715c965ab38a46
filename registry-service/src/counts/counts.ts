import { invalidArgument } from '@dynamic-events/proto';
import type pg from 'pg';
import { domainScopeOf } from '../db/queries/domain-scope.js';
import { bucketTotals, groupSeries, largestGroups, type CountFilter, type CountKey, type CountTable, type CountWidth } from '../db/queries/event-counts.js';
import { inTransaction, SNAPSHOT_READ } from '../db/queries/transaction.js';
import { checkEventFilter, type EventFilterInput } from '../reads/list-filters.js';
import { bucketRange, coverOf, MAX_GROUPS, WIDTH_US } from './count-range.js';

export interface CountRequest {
  filter: EventFilterInput;
  width: CountWidth;
  groupBy: CountKey | undefined;
  /** until when the filter has none. */
  nowUs: bigint;
}

export interface CountBucket {
  startUs: bigint;
  total: bigint;
  groups: Map<string, bigint>;
  other: bigint;
}

export interface CountAnswer {
  buckets: CountBucket[];
  other: bigint;
  /** The groups listed, largest over the range first. */
  groups: string[];
}

/** Filters of the list the counts are not kept by: refused, naming the field, rather than scanned. */
const NOT_COUNTED = [
  ['object', 'object'],
  ['tokenId', 'token_id'],
  ['occurredSinceUs', 'occurred_since'],
  ['occurredUntilUs', 'occurred_until'],
] as const;

/** The checked filter the counts answer; since is required. */
function countFilterOf(input: EventFilterInput): { filter: CountFilter; sinceUs: bigint; untilUs: bigint | undefined } {
  const checked = checkEventFilter(input);
  for (const [member, field] of NOT_COUNTED) {
    if (checked[member] !== undefined) throw invalidArgument(field, 'not-counted', `counts cannot filter by ${field} (list the events instead)`);
  }
  if (checked.sinceUs === undefined) throw invalidArgument('since', 'required', 'since is required');
  const scope = checked.domainPatterns && domainScopeOf(checked.domainPatterns);
  return {
    filter: { deviceName: checked.deviceName, domain: checked.domain, eventType: checked.eventType, scope },
    sinceUs: checked.sinceUs,
    untilUs: checked.untilUs,
  };
}

/**
 * Events per bucket, optionally per group, from the rollup (migration 0014): the totals, the
 * MAX_GROUPS largest groups over the range (read on the coarsest buckets that cover it), then
 * those groups per bucket; `other` is each bucket's total minus its listed groups.
 */
export function createCounter(pool: pg.Pool) {
  return async function countEvents(request: CountRequest): Promise<CountAnswer> {
    const { filter, sinceUs, untilUs } = countFilterOf(request.filter);
    const range = bucketRange(request.width, sinceUs, untilUs ?? request.nowUs);
    // Only event_counts knows devices; event_type_counts answers the rest from fewer rows.
    const byDevice = filter.deviceName !== undefined;
    const totalsTable: CountTable = byDevice ? 'event_counts' : 'event_type_counts';
    const groupTable: CountTable = byDevice || request.groupBy === 'device_name' ? 'event_counts' : 'event_type_counts';
    const key = request.groupBy;
    // One snapshot: a pass committing between the reads would leave totals and groups apart.
    const { totals, groups, series } = await inTransaction(pool, async (db) => {
      const totals = await bucketTotals(db, totalsTable, range, filter);
      const groups = key === undefined ? [] : await largestGroups(db, groupTable, key, coverOf(range.fromUs, range.toUs, range.width), filter, MAX_GROUPS);
      const series = key === undefined ? [] : await groupSeries(db, groupTable, key, range, filter, groups);
      return { totals, groups, series };
    }, SNAPSHOT_READ);
    const perBucket = new Map<bigint, Map<string, bigint>>();
    for (const row of series) {
      let inBucket = perBucket.get(row.startUs);
      if (inBucket === undefined) perBucket.set(row.startUs, (inBucket = new Map()));
      inBucket.set(row.key, row.n);
    }
    const buckets: CountBucket[] = [];
    let other = 0n;
    for (let startUs = range.fromUs; startUs < range.toUs; startUs += WIDTH_US[range.width]) {
      const total = totals.get(startUs) ?? 0n;
      const inBucket = perBucket.get(startUs) ?? new Map<string, bigint>();
      let grouped = 0n;
      for (const n of inBucket.values()) grouped += n;
      // Without a group_by every event is its bucket's total, none is "other".
      const rest = key === undefined ? 0n : total - grouped;
      other += rest;
      buckets.push({ startUs, total, groups: inBucket, other: rest });
    }
    return { buckets, other, groups };
  };
}

export type CountEvents = ReturnType<typeof createCounter>;
