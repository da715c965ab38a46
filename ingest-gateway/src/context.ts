import type { Middleware, ParameterizedContext } from 'koa';

/** What middleware leaves on ctx.state for the ones after it. */
export interface GatewayState {
  /** The request id (sane X-Request-Id from the caller, else a fresh UUID). */
  requestId: string;
  /** The parsed JSON object body, set by the json-body middleware. */
  body?: Record<string, unknown>;
  /** The body as received (decoded UTF-8 text): what an Idempotency-Key's fingerprint is taken of. */
  bodyText?: string;
}

/** Koa context of every gateway middleware and route. */
export type GatewayContext = ParameterizedContext<GatewayState>;
/** A middleware over the gateway's state. */
export type GatewayMiddleware = Middleware<GatewayState>;

/** The route pattern the router matched ("/api/platform/dh/objects/:id"), or "unmatched". */
export function routeOf(ctx: GatewayContext): string {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}
