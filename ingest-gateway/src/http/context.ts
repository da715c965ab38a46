import type { ServerResponse } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';
import { answeredOnSocketStatus } from './client-faults.js';
import { matchedRouteOf } from './matched-route.js';
import type { TokenCredential } from '../tokens/token-model.js';
import type { JsonBody } from '../ingest/json-body.js';

/** What middleware leaves on ctx.state for the ones after it. */
export interface GatewayState {
  /** The request id (sane X-Request-Id from the caller, else a fresh UUID). */
  requestId: string;
  /** The JSON body of a POST, set by the json-body middleware. */
  json?: JsonBody;
  /** The registry token that authenticated the request (bearerAuth); its policy applies. */
  token?: TokenCredential;
  /** The request presented ADMIN_TOKEN on a read route (bearerAuth): it reads everything, and no token revocation ends its stream. */
  adminReader?: true;
}

/** Koa context of every gateway middleware and route. */
export type GatewayContext = ParameterizedContext<GatewayState>;
/** A middleware over the gateway's state. */
export type GatewayMiddleware = Middleware<GatewayState>;

/** The route pattern the router matched ("/api/platform/dh/objects/:id"), or "unmatched". */
function routeOf(ctx: GatewayContext): string {
  return matchedRouteOf(ctx) ?? 'unmatched';
}

/**
 * How a response ended: its route pattern, the status the client was answered (499: it went away
 * first) and duration.
 */
export interface ResponseOutcome {
  route: string;
  status: number;
  seconds: number;
}

/**
 * Calls `done` once the response is over. It hooks the response's `close` event, so it sees the
 * final status the errors middleware wrote; when Koa's response never went out, the status the
 * clientError handler answered on the socket (a broken chunk mid-request: 400), else 499 (the
 * client left before the end).
 */
export function onResponseDone(ctx: GatewayContext, done: (outcome: ResponseOutcome) => void): void {
  whenResponseDone(ctx.res, () => ctx.status, () => routeOf(ctx), done);
}

/** onResponseDone for a bare node:http response (the POST fast path): `status` is read at the end. */
export function whenResponseDone(res: ServerResponse, status: () => number, route: () => string, done: (outcome: ResponseOutcome) => void): void {
  const started = performance.now();
  res.once('close', () => {
    const answered = res.writableFinished ? status() : (answeredOnSocketStatus(res) ?? 499);
    done({ route: route(), status: answered, seconds: (performance.now() - started) / 1000 });
  });
}
