import type { Router } from '@koa/router';
import { AppError, LIMITS } from '@dynamic-events/proto';
import { decodeStrictBase64 } from '../base64.js';
import { createIdentityGuard } from '../clients/identity-guard.js';
import type { MediaClient } from '../clients/media.js';
import { mediaUrl } from './media.js';
import type { RegistryClient } from '../clients/registry.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
import { bodyBudget } from '../middleware/body-budget.js';
import { readIdempotencyKey } from '../idempotency-key.js';
import { jsonBody } from '../middleware/json-body.js';
import type { CallOptions, EventInput } from '../model.js';
import { presentEvent } from '../presenters/event.js';
import { BASE64_IMAGE_FIELD, createEventValidator } from '../validation.js';

/** What the POST route needs: the shared auth middleware, both clients and the size limits. */
export interface DynamicEventRouteDeps {
  auth: GatewayMiddleware;
  registry: RegistryClient;
  media: MediaClient;
  maxBodyBytes: number;
  maxImageBytes: number;
  /** PUBLIC_BASE_URL (no trailing slash): stored images are served from {publicBaseUrl}{base}/media/{key}. */
  publicBaseUrl: string;
  /** MAX_INFLIGHT_BODY_BYTES: bodies being handled at once, all requests together. */
  maxInflightBodyBytes: number;
}

/**
 * POST {base}/dynamic-events: auth → body budget → Content-Type → body (size limit, UTF-8) → JSON
 * object → shape → Idempotency-Key → schema → characters → strict Base64 → identity check →
 * media.StoreImage → registry.RecordEvent → 200 with the event. With a key the registry decides:
 * record, replay the recorded event, or refuse (409); a replay may store its image again
 * (content-addressed, so it is the same object).
 * Every check runs before the first gRPC call, and media before the registry, so a rejected
 * request stores nothing; a 200 means the registry committed the event.
 */
export function dynamicEventRoutes(router: Router<GatewayState>, base: string, deps: DynamicEventRouteDeps): void {
  const validator = createEventValidator();
  // The image is stored before the event is recorded (the event carries its URL): an identity
  // conflict must be refused before, so that its 409 stores nothing.
  const identity = createIdentityGuard(deps.registry);
  const budget = bodyBudget({ maxInflightBytes: deps.maxInflightBodyBytes, maxBodyBytes: deps.maxBodyBytes });
  const body = jsonBody({ maxBodyBytes: deps.maxBodyBytes, maxDepth: LIMITS.jsonMaxDepth, maxValues: LIMITS.jsonMaxValues });

  router.post(`${base}/dynamic-events`, deps.auth, budget, body, async (ctx) => {
    const idempotency = readIdempotencyKey(ctx.req, ctx.state.bodyText ?? '');
    const { input: checked, base64Image } = validator.validate(ctx.state.body ?? {});
    const input: EventInput = idempotency === undefined ? checked : { ...checked, idempotency };
    // An event still waiting to be sent when its client left is dropped: nobody would learn its id.
    // (A getter, not an AbortController: one of those per request costs more than the check.)
    const socket = ctx.req.socket;
    const call: CallOptions = { requestId: ctx.state.requestId, gone: { get aborted() { return socket.destroyed; } } };
    let event: EventInput = input;
    if (base64Image !== undefined) {
      const bytes = decodeStrictBase64(base64Image, deps.maxImageBytes, BASE64_IMAGE_FIELD);
      await identity.check(input, call);
      const url = mediaUrl(deps.publicBaseUrl, base, await storeImage(deps.media, bytes, call));
      event = { ...input, images: [...input.images, url] };
    }
    const recorded = await deps.registry.recordEvent(event, call);
    // Every recorded event says who owns its identifier (a Map.set): later images of it need no lookup.
    identity.learn(recorded.domain, input.source.objectId);
    ctx.body = presentEvent(recorded);
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
