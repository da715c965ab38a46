import { Router } from '@koa/router';

/**
 * The one place that reads which route @koa/router matched: the pattern
 * ("/api/platform/dh/objects/:id") that labels a request's metrics. It is `ctx.routerPath`, which
 * the router's README documents as the matched route's path and sets as the route's layer starts
 * (its internal `_matchedRoute` holds the same and is not read). The same property is the router's
 * routing input when a request has no path, so what it holds after routing is a detail of the
 * router's code: @koa/router is pinned to an exact version in ingest-gateway/package.json, and
 * checkMatchedRoute proves it against the installed router when the app is built, failing the
 * start if it moved.
 */

const PROBE_PATTERN = '/matched-route-probe/:id';
let proven = false;

/** Thrown when the installed @koa/router leaves the matched pattern somewhere other than where matchedRouteOf reads it. */
export class RouterBehaviourChanged extends Error {
  override readonly name = 'RouterBehaviourChanged';
}

/** What the probe needs of a router: @koa/router's Router, or a stand-in in tests. */
export interface ProbeRouter {
  get(path: string, handler: () => undefined): unknown;
  routes(): (ctx: never, next: () => Promise<void>) => unknown;
}

/**
 * Routes one request through `router` and checks that `routerPath` then holds the pattern (the
 * router sets it synchronously, before the route's first middleware); throws RouterBehaviourChanged.
 */
export function proveMatchedRoute(router: ProbeRouter): void {
  router.get(PROBE_PATTERN, () => undefined);
  const ctx: Record<string, unknown> = { method: 'GET', path: '/matched-route-probe/7', request: {} };
  // The handler does nothing, and the field is set before the returned promise exists.
  void router.routes()(ctx as never, async () => undefined);
  if (ctx.routerPath !== PROBE_PATTERN) {
    throw new RouterBehaviourChanged(
      '@koa/router does not set ctx.routerPath to the matched pattern, so the gateway cannot label its metrics by route: ' +
        'pin @koa/router back, or read the pattern where the new version keeps it (ingest-gateway/src/http/matched-route.ts)',
    );
  }
}

/** proveMatchedRoute against the installed @koa/router, once per process: createApp calls it. */
export function checkMatchedRoute(): void {
  if (proven) return;
  proveMatchedRoute(new Router());
  proven = true;
}

/** The route pattern the router matched for this request, or undefined when no route matched. */
export function matchedRouteOf(ctx: object): string | undefined {
  const matched = (ctx as { routerPath?: unknown }).routerPath;
  return typeof matched === 'string' ? matched : undefined;
}
