import type { Router } from '@koa/router';
import { invalidArgument } from '@dynamic-events/proto';
import type { RegistryClient } from '../../clients/registry.js';
import type { CountQuery } from '../../model.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
import { readScopeOf, scopedFilter } from '../../tokens/read-scope.js';
import { eventQueryOf, occurredRangeOf, readParams, type RawQuery } from '../query-params.js';
import { EVENT_FILTERS } from './lists.js';

const BUCKETS: readonly CountQuery['bucket'][] = ['minute', 'hour', 'day'];
const GROUP_BY: readonly NonNullable<CountQuery['groupBy']>[] = ['event_type', 'domain', 'device_name'];

/** bucket=minute|hour|day (default hour), group_by=event_type|domain|device_name (default none). */
function countQueryOf(params: Record<string, string | undefined>): CountQuery {
  const bucket = params.bucket ?? 'hour';
  if (!BUCKETS.includes(bucket as CountQuery['bucket'])) throw invalidArgument('bucket', 'enum', `bucket must be one of ${BUCKETS.join(', ')}`);
  const groupBy = params.group_by;
  if (groupBy !== undefined && !GROUP_BY.includes(groupBy as NonNullable<CountQuery['groupBy']>)) {
    throw invalidArgument('group_by', 'enum', `group_by must be one of ${GROUP_BY.join(', ')}`);
  }
  return { bucket: bucket as CountQuery['bucket'], groupBy: groupBy as CountQuery['groupBy'] };
}

/**
 * GET {base}/dynamic-events/counts: events per UTC bucket, optionally per group (the 20 largest over
 * the range; the rest are each bucket's `other`), from the registry's counts (a few seconds behind
 * the events). The list's parameters and reading scope (tokens/read-scope.ts); since is required,
 * and the filters the counts are not kept by (object, token_id, occurred_*) are refused by the
 * registry with a 400 naming them.
 */
export function countRoutes(router: Router<GatewayState>, base: string, deps: { auth: GatewayMiddleware; registry: RegistryClient }): void {
  router.get(`${base}/dynamic-events/counts`, deps.auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, [...EVENT_FILTERS, 'occurred_since', 'occurred_until', 'bucket', 'group_by']);
    const count = countQueryOf(params);
    const query = scopedFilter(readScopeOf(ctx.state.token), { ...eventQueryOf(params), ...occurredRangeOf(params), ...count });
    ctx.body = await deps.registry.countEvents(query, { requestId: ctx.state.requestId });
  });
}
