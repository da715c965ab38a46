import { AppError, type OccurredAtRule } from '@dynamic-events/proto';
import { decodeStrictBase64 } from './base64.js';
import { createIdentityGuard } from './identity-guard.js';
import { BASE64_IMAGE_FIELD, createEventValidator } from './validation.js';
import type { MediaClient } from '../clients/media.js';
import type { RegistryClient } from '../clients/registry.js';
import { presentEvent, type EventJson } from '../api/event.js';
import { mediaUrl } from '../http/routes/media.js';
import type { CallOptions, EventInput, IdempotencyInput } from '../model.js';
import type { TokenCredential } from '../tokens/token-model.js';
import { checkTokenPolicy, registryDecidesFor } from '../tokens/token-policy.js';

/** What one event's steps need: both clients, the image limit and where stored images are served. */
interface EventStepsDeps {
  /** The API's base path, `/api/{segment}/dh`. */
  base: string;
  registry: RegistryClient;
  media: MediaClient;
  maxImageBytes: number;
  /** PUBLIC_BASE_URL (no trailing slash): stored images are served from {publicBaseUrl}{base}/media/{key}. */
  publicBaseUrl: string;
  /** The occurred_at rule with this gateway's clock and OCCURRED_AT_MAX_SKEW. */
  occurredAt: OccurredAtRule;
}

/** Who sent one event and how its calls go: the same for every event of a request. */
interface EventContext {
  token: TokenCredential | undefined;
  idempotency: IdempotencyInput | undefined;
  call: CallOptions;
  /** A batch's check of the event against its earlier events (batch-identities.ts), before any call. */
  claimIdentity?(input: EventInput): void;
}

/** One event's steps once its body is parsed: the single POST runs them once, a batch once per event. */
export interface EventSteps {
  /**
   * schema → characters → the token's domains → strict Base64 → identity check → (an image of a
   * token whose policy the registry applies: registry.CheckEvent) → media.StoreImage →
   * registry.RecordEvent → the event as the spec shows it. `image` is the base64_image already
   * lifted from the raw bytes and decoded (image-cut.ts). Every check runs before the first gRPC
   * call, and media before the registry, so a refused event stores nothing.
   */
  record(body: Record<string, unknown>, image: Buffer | undefined, context: EventContext): Promise<EventJson>;
}

export function createEventSteps(deps: EventStepsDeps): EventSteps {
  const validator = createEventValidator(deps.occurredAt);
  // The image is stored before the event is recorded (the event carries its URL): an identity
  // conflict must be refused before, so that its 409 stores nothing.
  const identity = createIdentityGuard(deps.registry);

  return {
    async record(body, image, { token, idempotency, call, claimIdentity }) {
      const { input: checked, base64Image } = validator.validate(body);
      checkTokenPolicy(token, checked);
      claimIdentity?.(checked);
      // The registry applies the rest of the token's policy, records who sent the event and scopes its key.
      // The validator made this object for this event alone: completed in place, not copied.
      const input: EventInput = checked;
      input.idempotency = idempotency;
      input.tokenId = token?.id;
      let event: EventInput = input;
      if (base64Image !== undefined) {
        // Lifted from the raw body and decoded there (image-cut.ts), or decoded from the parsed text.
        const bytes = image ?? decodeStrictBase64(base64Image, deps.maxImageBytes, BASE64_IMAGE_FIELD);
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
