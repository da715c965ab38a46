import { AppError, invalidArgument, registry, toItemStatus, type OccurredAtRule } from '@dynamic-events/proto';
import { type AsyncServiceImpl, type CallContext, type ItemResult, type Logger } from '@dynamic-events/proto/runtime';
import type { Lister } from '../reads/lists.js';
import type { CountEvents } from '../counts/counts.js';
import { toCountRequest, toCountResponse } from './count-mapping.js';
import type { Reader } from '../reads/reads.js';
import type { EventRecorder } from '../ingest/record-events.js';
import type { PolicyCheck } from '../tokens/token-policy-check.js';
import type { EventDraft, NewEvent, RecordedEvent } from '../model.js';
import { validateBatchSize, validateEvent } from '../ingest/validate-event.js';
import type { Watch } from '../watch/watch.js';
import { isByOccurrence, isNewestFirst, toChangeKinds, toEventFilter } from './from-proto.js';
import { toDevice, toEvent, toEventType, toObject, toRecorded } from './to-proto.js';
import type { WatchEncoding } from './watch-encoding.js';

interface RegistryHandlerDeps {
  recorder: EventRecorder;
  /** CheckEvent's token policy (the validation is validateEvent's). */
  policyCheck: PolicyCheck;
  reader: Reader;
  lister: Lister;
  countEvents: CountEvents;
  watch: Watch;
  /** The same instance must serialize the Watch method's responses (server.ts wires both). */
  watchEncoding: WatchEncoding;
  /** The occurred_at rule with this service's clock and OCCURRED_AT_MAX_SKEW. */
  occurredAt: OccurredAtRule;
  /** FindRequestKeys (ingest/idempotency.ts). */
  findRequestKeys(tokenId: string, keys: string[]): Promise<Array<{ key: string; requestHash: string }>>;
  logger: Logger;
}


/** RegistryService handlers: the only place that maps protobuf messages to domain types and back. */
export function createRegistryHandlers(deps: RegistryHandlerDeps): AsyncServiceImpl<registry.RegistryServiceServer> {
  const { recorder, policyCheck, reader, lister, watch, watchEncoding, occurredAt, logger } = deps;
  const validate = (event: registry.NewEvent): NewEvent => validateEvent(toDraft(event), occurredAt);
  async function recordEvents(request: registry.RecordEventsRequest, ctx: CallContext): Promise<registry.RecordEventsResponse> {
    validateBatchSize(request.events.length);
    const results = await recordEach(recorder, request.events, validate);
    return {
      results: results.map((result, i) => {
        const requestId = request.requestIds[i] || ctx.requestId;
        if (result.ok) {
          logger.debug({ requestId, eventId: result.value.event.id }, 'event recorded');
          return { recorded: toRecorded(result.value) };
        }
        if (isInternal(result.error)) logger.error({ requestId, err: result.error }, 'event could not be recorded');
        else logger.debug({ requestId, code: (result.error as AppError).code, ...(result.error as AppError).details }, 'event refused');
        return { error: toItemStatus(result.error) };
      }),
    };
  }

  return {
    async recordEvent(request) {
      if (!request.event) throw invalidArgument('event', 'required', 'event is required');
      const [result] = await recorder.record([validate(request.event)]);
      if (!result) throw new Error('recorder returned no result');
      if (!result.ok) throw result.error;
      return toRecorded(result.value);
    },
    async checkEvent(request) {
      if (!request.event) throw invalidArgument('event', 'required', 'event is required');
      await policyCheck.check(validate(request.event));
      return {};
    },
    recordEvents,
    async findRequestKeys(request) {
      const found = await deps.findRequestKeys(request.tokenId, request.idempotencyKeys);
      return { keys: found.map(({ key, requestHash }) => ({ idempotencyKey: key, requestHash })) };
    },
    // The same batch as a message on a lane (grpc-lanes-server.ts): what the gateway sends on.
    async recordEventsStream(request, ctx) {
      if (!request.batch) throw invalidArgument('batch', 'required', 'batch is required');
      return { batch: await recordEvents(request.batch, ctx) };
    },
    async getEvent(request) {
      return { event: toEvent(await reader.getEvent(request.id)) };
    },
    async getDevice(request) {
      return { device: toDevice(await reader.getDevice(request.deviceName)) };
    },
    async getObject(request) {
      return { object: toObject(await reader.getObject(request.id)) };
    },
    async getEventType(request) {
      return { eventType: toEventType(await reader.getEventType(request.domain, request.eventType)) };
    },
    async listEvents(request) {
      const { pageSize, pageToken } = request;
      const newestFirst = isNewestFirst(request.order);
      const page = await lister.listEvents({ filter: toEventFilter(request.filter), pageSize, pageToken, newestFirst, byOccurrence: isByOccurrence(request.orderBy) });
      return { events: page.items.map(toEvent), nextPageToken: page.nextPageToken ?? '' };
    },
    async countEvents(request) {
      const nowUs = BigInt(Date.now()) * 1000n;
      return toCountResponse(await deps.countEvents(toCountRequest(request, nowUs)));
    },
    async listDevices(request) {
      const page = await lister.listDevices(request);
      return { devices: page.items.map(toDevice), nextPageToken: page.nextPageToken ?? '' };
    },
    async listObjects(request) {
      const page = await lister.listObjects({ ...request, domainPatterns: request.domainPatterns?.values });
      return { objects: page.items.map(toObject), nextPageToken: page.nextPageToken ?? '' };
    },
    async listEventTypes(request) {
      const page = await lister.listEventTypes({ ...request, domainPatterns: request.domainPatterns?.values });
      return { eventTypes: page.items.map(toEventType), nextPageToken: page.nextPageToken ?? '' };
    },
    async *watch(request, ctx) {
      const input = { filter: watchFilterOf(request.filter), kinds: toChangeKinds(request.kinds), afterCursor: request.afterCursor };
      for await (const message of watch(input, ctx.signal)) yield watchEncoding.toResponse(message);
    },
  };
}

/** A Watch's filter: it follows commits, so an occurred_at range is refused (since/until are watch.ts's). */
function watchFilterOf(wire: registry.EventFilter | undefined): ReturnType<typeof toEventFilter> {
  const filter = toEventFilter(wire);
  if (filter.occurredSinceUs !== undefined || filter.occurredUntilUs !== undefined) {
    throw invalidArgument(filter.occurredSinceUs !== undefined ? 'occurred_since' : 'occurred_until', 'unsupported', 'a watch follows commits: occurred_since and occurred_until are not allowed');
  }
  return filter;
}

const isInternal = (err: unknown): boolean => !(err instanceof AppError) || err.code === 'INTERNAL';

/**
 * Validates each event on its own (a refused one answers in its slot) and records the valid ones.
 * When the database failed for every event nothing was decided: the whole call fails, as one outage.
 */
async function recordEach(recorder: EventRecorder, events: registry.NewEvent[], validate: (event: registry.NewEvent) => NewEvent): Promise<Array<ItemResult<RecordedEvent>>> {
  const valid: NewEvent[] = [];
  const checked = events.map((event): ItemResult<RecordedEvent> | undefined => {
    try {
      valid.push(validate(event));
      return undefined;
    } catch (error) {
      return { ok: false, error };
    }
  });
  const written = await recorder.record(valid);
  let next = 0;
  const results = checked.map((result) => result ?? written[next++]!);
  const failed = results.filter((r) => !r.ok && isInternal(r.error));
  const first = failed[0];
  if (first && !first.ok && failed.length === results.length) throw first.error;
  return results;
}

function toDraft(event: registry.NewEvent): EventDraft {
  return {
    source: event.source && { ...event.source },
    eventType: event.eventType && { ...event.eventType },
    properties: event.additionalProperties.map(({ key, value }) => ({ key, value })),
    images: event.images,
    videoClips: event.videoClips,
    // A key is the sending token's own: two integrators may pick the same key without colliding.
    idempotency: event.idempotencyKey === '' && event.requestHash === '' ? undefined : { scope: event.tokenId, key: event.idempotencyKey, requestHash: event.requestHash },
    // Lower case, as Postgres prints the ids the policy cache and the filters compare it with.
    tokenId: event.tokenId === '' ? undefined : event.tokenId.toLowerCase(),
    occurredAt: event.occurredAt,
  };
}
