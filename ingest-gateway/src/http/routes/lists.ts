import type { Router } from '@koa/router';
import type { RegistryClient } from '../../clients/registry.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
import { presentDevice, presentEventType, presentObject } from '../../api/entities.js';
import { presentEvent } from '../../api/event.js';
import { deviceListFilter, readScopeOf, scopedFilter } from '../../tokens/read-scope.js';
import { byOccurrenceOf, eventQueryOf, occurredRangeOf, oldestFirstOf, pageOf, readParams, type RawQuery } from '../query-params.js';

const EVENT_FILTERS = ['device_name', 'object', 'domain', 'event_type', 'since', 'until', 'token_id'] as const;
const PAGING = ['limit', 'page_token'] as const;

/**
 * List endpoints: a page of records in the shapes of the single reads, and the opaque token of the
 * next page (null on the last). Same bearer token as the other reads. Parameters are checked here
 * (400 naming the parameter); a bad page_token comes back from the registry as INVALID_ARGUMENT.
 * `q=` on the entity lists keeps those whose name or id holds it, ignoring case (the registry checks it).
 * A domain-restricted token lists within its domains only (tokens/read-scope.ts: its patterns are
 * the registry's filter; a domain= outside them is 403) and the devices it created.
 */
export function listRoutes(router: Router<GatewayState>, base: string, deps: { auth: GatewayMiddleware; registry: RegistryClient }): void {
  const { auth, registry } = deps;

  router.get(`${base}/dynamic-events`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, [...EVENT_FILTERS, 'occurred_since', 'occurred_until', ...PAGING, 'order', 'order_by']);
    const order = { oldestFirst: oldestFirstOf(params.order), byOccurrence: byOccurrenceOf(params.order_by) };
    const query = scopedFilter(readScopeOf(ctx.state.token), { ...eventQueryOf(params), ...occurredRangeOf(params), ...pageOf(params), ...order });
    const page = await registry.listEvents(query, { requestId: ctx.state.requestId });
    ctx.body = { events: page.items.map(presentEvent), next_page_token: page.nextPageToken };
  });

  router.get(`${base}/devices`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, [...PAGING, 'q']);
    const query = { ...pageOf(params), q: params.q, ...deviceListFilter(readScopeOf(ctx.state.token)) };
    const page = await registry.listDevices(query, { requestId: ctx.state.requestId });
    ctx.body = { devices: page.items.map(presentDevice), next_page_token: page.nextPageToken };
  });

  router.get(`${base}/objects`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, ['device_name', 'domain', 'q', ...PAGING]);
    const query = scopedFilter(readScopeOf(ctx.state.token), { ...pageOf(params), deviceName: params.device_name, domain: params.domain, q: params.q });
    const page = await registry.listObjects(query, { requestId: ctx.state.requestId });
    ctx.body = { objects: page.items.map(presentObject), next_page_token: page.nextPageToken };
  });

  router.get(`${base}/event-types`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, ['domain', 'q', ...PAGING]);
    const query = scopedFilter(readScopeOf(ctx.state.token), { ...pageOf(params), domain: params.domain, q: params.q });
    const page = await registry.listEventTypes(query, { requestId: ctx.state.requestId });
    ctx.body = { event_types: page.items.map(presentEventType), next_page_token: page.nextPageToken };
  });
}

export { EVENT_FILTERS };
