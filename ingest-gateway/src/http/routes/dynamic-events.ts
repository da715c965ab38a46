import type { IncomingMessage } from 'node:http';
import type { Router } from '@koa/router';
import { AppError, LIMITS } from '@dynamic-events/proto';
import { decodeStrictBase64 } from '../../ingest/base64.js';
import { createIdentityGuard } from '../../ingest/identity-guard.js';
import type { MediaClient } from '../../clients/media.js';
import { mediaUrl } from './media.js';
import type { RegistryClient } from '../../clients/registry.js';
import type { GatewayState } from '../context.js';
import type { RateLimiter } from '../../tokens/rate-limit.js';
import type { Authenticator } from '../../tokens/authenticator.js';
import { createBodyBudget, type BodyBudget } from '../../ingest/body-budget.js';
import { readIdempotencyKey } from '../../ingest/idempotency-key.js';
import { readJsonBody, type JsonBody } from '../../ingest/json-body.js';
import type { CallOptions, EventInput } from '../../model.js';
import { presentEvent, type EventJson } from '../../api/event.js';
import type { TokenCredential } from '../../tokens/token-model.js';
import { checkTokenPolicy, registryDecidesFor } from '../../tokens/token-policy.js';
import { BASE64_IMAGE_FIELD, createEventValidator } from '../../ingest/validation.js';

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
  limitRate: RateLimiter;
  budget: BodyBudget;
  readBody(req: IncomingMessage): Promise<JsonBody>;
  /** Everything after the body was read, up to the answer (the event as the spec shows it); `token` authenticated it. */
  record(req: IncomingMessage, body: JsonBody, requestId: string, token: TokenCredential | undefined): Promise<EventJson>;
}

/**
 * auth → the token's rate → body budget → Content-Type → body (size limit, UTF-8) → JSON object → shape →
 * Idempotency-Key → schema → characters → the token's domains → strict Base64 → identity check →
 * (an image of a token whose policy the registry applies: registry.CheckEvent) → media.StoreImage →
 * registry.RecordEvent → 200 with the event. With a key the registry decides: record, replay the
 * recorded event, or refuse (409); a replay may store its image again (content-addressed, so it is
 * the same object). Every check runs before the first gRPC call, and media before the registry, so a
 * rejected request stores nothing; a 200 means the registry committed the event.
 */
export function createDynamicEventPost(deps: DynamicEventPostDeps): DynamicEventPost {
  const validator = createEventValidator();
  // The image is stored before the event is recorded (the event carries its URL): an identity
  // conflict must be refused before, so that its 409 stores nothing.
  const identity = createIdentityGuard(deps.registry);
  const bodyOptions = { maxBodyBytes: deps.maxBodyBytes, maxDepth: LIMITS.jsonMaxDepth, maxValues: LIMITS.jsonMaxValues, maxImageBytes: deps.maxImageBytes };

  return {
    path: `${deps.base}/dynamic-events`,
    authenticate: deps.authenticate,
    limitRate: deps.limitRate ?? (() => undefined),
    budget: createBodyBudget({ maxInflightBytes: deps.maxInflightBodyBytes, maxBodyBytes: deps.maxBodyBytes }),
    readBody: (req) => readJsonBody(req, bodyOptions),
    async record(req, body, requestId, token) {
      const idempotency = readIdempotencyKey(req, body.bytes);
      const { input: checked, base64Image } = validator.validate(body.body);
      checkTokenPolicy(token, checked);
      // The registry applies the rest of the token's policy, records who sent the event and scopes its key.
      // The validator made this object for this request alone: completed in place, not copied.
      const input: EventInput = checked;
      input.idempotency = idempotency;
      input.tokenId = token?.id;
      // An event still waiting to be sent when its client left is dropped: nobody would learn its id.
      // (A getter, not an AbortController: one of those per request costs more than the check.)
      const socket = req.socket;
      const call: CallOptions = { requestId, gone: { get aborted() { return socket.destroyed; } } };
      let event: EventInput = input;
      if (base64Image !== undefined) {
        // Lifted from the raw body and decoded there (image-cut.ts), or decoded from the parsed text.
        const bytes = body.image ?? decodeStrictBase64(base64Image, deps.maxImageBytes, BASE64_IMAGE_FIELD);
        await identity.check(input, call);
        if (registryDecidesFor(token)) await deps.registry.checkEvent(input, call);
        const url = mediaUrl(deps.publicBaseUrl, deps.base, await storeImage(deps.media, bytes, call));
        event = { ...input, images: [...input.images, url] };
      }
      const recorded = await deps.registry.recordEvent(event, call);
      // Every recorded event says who owns its identifier (a Map.set): later images of it need no lookup.
      identity.learn(recorded.domain, input.source.objectId);
      return presentEvent(recorded);
    },
  };
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

/** Stores the image and answers its key; media's INVALID_ARGUMENT is about the caller's field, so name it. */
async function storeImage(media: MediaClient, bytes: Buffer, call: CallOptions): Promise<string> {
  try {
    return (await media.storeImage(bytes, call)).key;
  } catch (err) {
    if (err instanceof AppError && err.code === 'INVALID_ARGUMENT') {
      throw new AppError('INVALID_ARGUMENT', `${BASE64_IMAGE_FIELD}: ${err.message}`, { ...err.details, field: BASE64_IMAGE_FIELD }, err);
    }
    throw err;
  }
}
