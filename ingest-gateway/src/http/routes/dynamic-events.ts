import type { IncomingMessage } from 'node:http';
import type { Router } from '@koa/router';
import { createOccurredAtRule, LIMITS } from '@dynamic-events/proto';
import type { MediaClient } from '../../clients/media.js';
import type { RegistryClient } from '../../clients/registry.js';
import type { GatewayState } from '../context.js';
import type { RateLimiter } from '../../tokens/rate-limit.js';
import type { Authenticator } from '../../tokens/authenticator.js';
import { createBodyBudget, type BodyBudget } from '../../ingest/body-budget.js';
import { createEventSteps, type EventSteps } from '../../ingest/event-steps.js';
import { readIdempotencyKey } from '../../ingest/idempotency-key.js';
import { readJsonBody, type JsonBody } from '../../ingest/json-body.js';
import type { CallOptions } from '../../model.js';
import type { EventJson } from '../../api/event.js';
import type { TokenCredential } from '../../tokens/token-model.js';

/** What the POST needs: the shared authenticator, both clients and the size limits. */
interface DynamicEventPostDeps {
  /** The API's base path, `/api/{segment}/dh`. */
  base: string;
  authenticate: Authenticator;
  registry: RegistryClient;
  media: MediaClient;
  maxBodyBytes: number;
  maxImageBytes: number;
  /** PUBLIC_BASE_URL (no trailing slash): stored images are served from {publicBaseUrl}{base}/media/{key}. */
  publicBaseUrl: string;
  /** MAX_INFLIGHT_BODY_BYTES: bodies being handled at once, all requests together. */
  maxInflightBodyBytes: number;
  /** OCCURRED_AT_MAX_SKEW in seconds. */
  occurredAtMaxSkewSeconds: number;
  /** A token's rate, checked after auth and before the body is read (none: no limits). */
  limitRate?: RateLimiter;
}

/**
 * POST {base}/dynamic-events, step by step, with no HTTP framework in it. `runDynamicEventPost`
 * runs them in their one order, for the Koa route below and the fast path (fast-post.ts) alike.
 */
export interface DynamicEventPost {
  /** The route's path, `{base}/dynamic-events`. */
  path: string;
  authenticate: Authenticator;
  /** The token's rate (rate-limit.ts): undefined when there is nothing to wait for. */
  limitRate: (token: TokenCredential | undefined) => Promise<void> | undefined;
  /** Bytes of bodies in flight: shared with the batch POST (batch-post.ts). */
  budget: BodyBudget;
  /** One event's steps after parsing (event-steps.ts): shared with the batch POST. */
  steps: EventSteps;
  readBody(req: IncomingMessage): Promise<JsonBody>;
  /** Everything after the body was read, up to the answer (the event as the spec shows it); `token` authenticated it. */
  record(req: IncomingMessage, body: JsonBody, requestId: string, token: TokenCredential | undefined): Promise<EventJson>;
}

/**
 * auth → the token's rate → body budget → Content-Type → body (size limit, UTF-8) → JSON object → shape →
 * Idempotency-Key → the event's steps (event-steps.ts: schema … registry.RecordEvent) → 200 with the
 * event. With a key the registry decides: record, replay the recorded event, or refuse (409); a
 * replay may store its image again (content-addressed, so it is the same object). A rejected request
 * stores nothing; a 200 means the registry committed the event.
 */
export function createDynamicEventPost(deps: DynamicEventPostDeps): DynamicEventPost {
  const steps = createEventSteps({ ...deps, occurredAt: createOccurredAtRule(deps.occurredAtMaxSkewSeconds) });
  const bodyOptions = { maxBodyBytes: deps.maxBodyBytes, maxDepth: LIMITS.jsonMaxDepth, maxValues: LIMITS.jsonMaxValues, maxImageBytes: deps.maxImageBytes };

  return {
    path: `${deps.base}/dynamic-events`,
    authenticate: deps.authenticate,
    limitRate: deps.limitRate ?? (() => undefined),
    budget: createBodyBudget({ maxInflightBytes: deps.maxInflightBodyBytes, maxBodyBytes: deps.maxBodyBytes }),
    steps,
    readBody: (req) => readJsonBody(req, bodyOptions),
    async record(req, body, requestId, token) {
      const idempotency = readIdempotencyKey(req, body.bytes);
      return steps.record(body.body, body.image, { token, idempotency, call: callOf(req, requestId) });
    },
  };
}

/**
 * A request's call options. An event still waiting to be sent when its client left is dropped:
 * nobody would learn its id. (A getter, not an AbortController: one of those per request costs more
 * than the check.)
 */
export function callOf(req: IncomingMessage, requestId: string): CallOptions {
  const socket = req.socket;
  return { requestId, gone: { get aborted() { return socket.destroyed; } } };
}

/**
 * The POST's one order, run by both HTTP paths (the fast path and the Koa route): auth → the token's
 * rate → body budget → body → record. The budget is held from before the first byte is read until
 * the event is recorded or refused. Answers the event as the spec shows it, or throws: each path
 * answers the failure through createFailureAnswer. What every request gets whatever its route
 * (request id, Host check, access log, metrics, Connection: close while draining) is the HTTP
 * layer's, run once per request by the path that took it.
 */
export async function runDynamicEventPost(post: DynamicEventPost, req: IncomingMessage, requestId: string): Promise<EventJson> {
  const token = post.authenticate(req);
  const limited = post.limitRate(token);
  if (limited) await limited;
  const reserved = post.budget.reserve(req);
  try {
    return await post.record(req, await post.readBody(req), requestId, token);
  } finally {
    post.budget.release(reserved);
  }
}

/** The POST as a Koa route (paths the fast path leaves to Koa: another case, a trailing slash...). */
export function dynamicEventRoutes(router: Router<GatewayState>, post: DynamicEventPost): void {
  router.post(post.path, async (ctx) => {
    ctx.body = await runDynamicEventPost(post, ctx.req, ctx.state.requestId);
  });
}
