import {
  BASE64_IMAGE_KEY,
  LIMITS,
  checkEventCharacters,
  checkObjectIdOutsideDomain,
  checkIdempotencyKey,
  invalidArgument,
  isBlank,
  OCCURRED_AT_FIELD,
  type OccurredAtRule,
  propertyField,
  ruleError,
} from '@dynamic-events/proto';
import type { EventDraft, IdempotencyKey, NewEvent, PropertyInput } from '../model.js';
import { isUuid } from '../uuid-v7.js';

/**
 * Validates one event with the gateway's rules, limits and messages (all from @dynamic-events/proto;
 * the registry is also called directly by other platform services, so it cannot trust its callers).
 * Field names follow the HTTP body, e.g. "source.device_name"; `prefix` qualifies them inside a
 * batch ("events[3]."). Throws INVALID_ARGUMENT naming the first broken field and its rule.
 * `occurredAt` is the shared rule with this service's clock and OCCURRED_AT_MAX_SKEW.
 */
export function validateEvent(draft: EventDraft, occurredAt: OccurredAtRule, prefix = ''): NewEvent {
  const f = (path: string): string => `${prefix}${path}`;
  const { source, eventType } = draft;
  if (!source) throw ruleError.required(f('source'));
  requiredName(f('source.device_name'), source.deviceName);
  requiredName(f('source.object_id'), source.objectId);
  requiredName(f('source.object_domain'), source.objectDomain);
  requiredName(f('source.object_name'), source.objectName);
  requiredName(f('source.object_type'), source.objectType);

  if (!eventType) throw ruleError.required(f('event.event_type'));
  requiredName(f('event.event_type.event_type'), eventType.eventType);
  requiredName(f('event.event_type.display_name'), eventType.displayName);
  required(f('event.event_type.display_description'), eventType.displayDescription, LIMITS.descriptionMaxLength);

  checkProperties(prefix, draft.properties);
  // A stored event holds at most urlsMaxCount image URLs, whoever sends them: the gateway counts a
  // stored base64_image's URL among them before it stores the image.
  checkUrls(f('event.event_data.images'), draft.images, LIMITS.urlsMaxCount);
  checkUrls(f('event.event_data.video_clips'), draft.videoClips, LIMITS.urlsMaxCount);
  checkObjectIdOutsideDomain(f('source.object_id'), source.objectId, source.objectDomain);
  const occurredAtMicros = draft.occurredAt && occurredAt.check(f(OCCURRED_AT_FIELD), draft.occurredAt);
  if (draft.idempotency !== undefined) checkIdempotency(draft.idempotency);
  if (draft.tokenId !== undefined && !isUuid(draft.tokenId)) throw invalidArgument('token_id', 'format', 'token_id must be a token id (a UUID) or empty');
  const event: NewEvent = {
    source,
    eventType,
    properties: draft.properties,
    images: draft.images,
    videoClips: draft.videoClips,
    idempotency: draft.idempotency,
    tokenId: draft.tokenId,
    occurredAtMicros,
  };
  checkEventCharacters(event, prefix);
  return event;
}

/** Longest request_hash stored (a hex sha512 fits; the gateway sends a hex sha256). */
const REQUEST_HASH_MAX_LENGTH = 128;

/** The key follows the shared rules; a key without the fingerprint of its request could not tell a retry from a reuse. */
function checkIdempotency({ key, requestHash }: IdempotencyKey): void {
  checkIdempotencyKey(key);
  if (requestHash === '') throw invalidArgument('request_hash', 'required', 'request_hash is required with an idempotency key');
  if (requestHash.length > REQUEST_HASH_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(requestHash)) {
    throw invalidArgument('request_hash', 'format', `request_hash must be at most ${REQUEST_HASH_MAX_LENGTH} printable ASCII characters without spaces`);
  }
}

/** Batch size check for RecordEvents (one transaction must stay bounded). */
export function validateBatchSize(count: number): void {
  if (count > LIMITS.batchMaxEvents) {
    throw invalidArgument('events', 'max-items', `events must contain at most ${LIMITS.batchMaxEvents} events (got ${count})`);
  }
}

function requiredName(field: string, value: string): void {
  required(field, value, LIMITS.nameMaxLength);
}

/** Protobuf cannot tell a missing string from an empty one: both are "must not be empty". */
function required(field: string, value: string, maxLength: number): void {
  if (isBlank(value)) throw ruleError.notEmpty(field);
  bounded(field, value, maxLength);
}

function bounded(field: string, value: string, maxLength: number): void {
  if (!withinLength(value, maxLength)) throw ruleError.maxLength(field, maxLength);
}

/** Counts Unicode code points (as JSON Schema's maxLength does), cheaply for the usual short string. */
export function withinLength(value: string, maxLength: number): boolean {
  if (value.length <= maxLength) return true;
  if (value.length > maxLength * 2) return false;
  let count = 0;
  for (const _ of value) if (++count > maxLength) return false;
  return true;
}

function checkProperties(prefix: string, properties: PropertyInput[]): void {
  const field = `${prefix}event.event_data.event_additional_properties`;
  if (properties.length > LIMITS.propertiesMaxCount) throw ruleError.maxProperties(field, LIMITS.propertiesMaxCount);
  const seen = new Set<string>();
  for (const { key, value } of properties) {
    if (!withinLength(key, LIMITS.propertyKeyMaxLength)) throw ruleError.keyMaxLength(field, LIMITS.propertyKeyMaxLength);
    const named = `${field} ${JSON.stringify(key)}`;
    if (key === BASE64_IMAGE_KEY) {
      throw invalidArgument(field, 'reserved', `${named} is reserved: store the image with the media service and send its URL in images`);
    }
    if (seen.has(key)) throw invalidArgument(field, 'duplicate', `${named} appears more than once`);
    seen.add(key);
    bounded(propertyField(prefix, key), value, LIMITS.propertyValueMaxLength);
  }
}

function checkUrls(field: string, urls: string[], maxItems: number): void {
  if (urls.length > maxItems) throw ruleError.maxItems(field, maxItems);
  urls.forEach((url, i) => bounded(`${field}[${i}]`, url, LIMITS.urlMaxLength));
}
