import type { Router } from '@koa/router';
import { AppError, LIMITS } from '@dynamic-events/proto';
import { decodeStrictBase64 } from '../base64.js';
import type { MediaClient } from '../clients/media.js';
import type { RegistryClient } from '../clients/registry.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
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
}

/**
 * POST {base}/dynamic-events: auth → Content-Type → body (size limit) → JSON object → depth →
 * Idempotency-Key → schema → strict Base64 → media.StoreImage → registry.RecordEvent → 200 with
 * the event. With a key the registry decides: record, replay the recorded event, or refuse (409);
 * a replay may store its image again (content-addressed, so it is the same object).
 * Every check runs before the first gRPC call, and media before the registry, so a rejected
 * request stores nothing; a 200 means the registry committed the event.
 */
export function dynamicEventRoutes(router: Router<GatewayState>, base: string, deps: DynamicEventRouteDeps): void {
  const validator = createEventValidator();
  const body = jsonBody({ maxBodyBytes: deps.maxBodyBytes, maxDepth: LIMITS.jsonMaxDepth });

  router.post(`${base}/dynamic-events`, deps.auth, body, async (ctx) => {
    const rawBody: unknown = ctx.request.body;
    const idempotency = readIdempotencyKey(ctx.req, typeof rawBody === 'string' ? rawBody : '');
    const { input: checked, base64Image } = validator.validate(ctx.state.body ?? {});
    const input: EventInput = idempotency === undefined ? checked : { ...checked, idempotency };
    // An event still waiting to be sent when its client left is dropped: nobody would learn its id.
    // (A getter, not an AbortController: one of those per request costs more than the check.)
    const socket = ctx.req.socket;
    const call: CallOptions = { requestId: ctx.state.requestId, gone: { get aborted() { return socket.destroyed; } } };
    let event: EventInput = input;
    if (base64Image !== undefined) {
      const bytes = decodeStrictBase64(base64Image, deps.maxImageBytes, BASE64_IMAGE_FIELD);
      const url = await storeImage(deps.media, bytes, call);
      event = { ...input, images: [...input.images, url] };
    }
    ctx.body = presentEvent(await deps.registry.recordEvent(event, call));
  });
}

/** Stores the image; media's INVALID_ARGUMENT is about the caller's field, so name it. */
async function storeImage(media: MediaClient, bytes: Buffer, call: CallOptions): Promise<string> {
  try {
    return (await media.storeImage(bytes, call)).url;
  } catch (err) {
    if (err instanceof AppError && err.code === 'INVALID_ARGUMENT') {
      throw new AppError('INVALID_ARGUMENT', `${BASE64_IMAGE_FIELD}: ${err.message}`, { ...err.details, field: BASE64_IMAGE_FIELD }, err);
    }
    throw err;
  }
}
