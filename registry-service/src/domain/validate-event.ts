import { BASE64_IMAGE_KEY, LIMITS, checkIdempotencyKey, invalidArgument } from '@dynamic-events/proto';
import type { EventDraft, IdempotencyKey, NewEvent, PropertyInput } from './types.js';

/**
 * Validates one event with the gateway's rules and limits (the registry is also called directly by
 * other platform services, so it cannot trust its callers). Field names follow the HTTP body, e.g.
 * "source.device_name"; `prefix` qualifies them inside a batch ("events[3].").
 * Throws INVALID_ARGUMENT naming the first broken field and its rule.
 */
export function validateEvent(draft: EventDraft, prefix = ''): NewEvent {
  const f = (path: string): string => `${prefix}${path}`;
  const { source, eventType } = draft;
  if (!source) throw invalidArgument(f('source'), 'required', `${f('source')} is required`);
  requiredName(f('source.device_name'), source.deviceName);
  requiredName(f('source.object_id'), source.objectId);
  requiredName(f('source.object_domain'), source.objectDomain);
  requiredName(f('source.object_name'), source.objectName);
  requiredName(f('source.object_type'), source.objectType);
  if (source.objectId.startsWith(`${source.objectDomain}.`)) {
    throw invalidArgument(
      f('source.object_id'),
      'contains-domain',
      `${f('source.object_id')} must not contain the domain: send the id inside the domain, not "${source.objectDomain}.…"`,
    );
  }

  if (!eventType) throw invalidArgument(f('event.event_type'), 'required', `${f('event.event_type')} is required`);
  requiredName(f('event.event_type.event_type'), eventType.eventType);
  requiredName(f('event.event_type.display_name'), eventType.displayName);
  required(f('event.event_type.display_description'), eventType.displayDescription, LIMITS.descriptionMaxLength);

  checkProperties(f('event.event_data.event_additional_properties'), draft.properties);
  // The gateway appends the stored base64_image URL to the caller's images, hence one more.
  checkUrls(f('event.event_data.images'), draft.images, LIMITS.urlsMaxCount + 1);
  checkUrls(f('event.event_data.video_clips'), draft.videoClips, LIMITS.urlsMaxCount);
  if (draft.idempotency !== undefined) checkIdempotency(draft.idempotency);
  return { source, eventType, properties: draft.properties, images: draft.images, videoClips: draft.videoClips, idempotency: draft.idempotency };
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

/** Whitespace-only counts as empty; the value itself is stored as sent. */
function required(field: string, value: string, maxLength: number): void {
  if (value.trim() === '') throw invalidArgument(field, 'required', `${field} is required and must not be empty`);
  bounded(field, value, maxLength);
}

function bounded(field: string, value: string, maxLength: number): void {
  if (!withinLength(value, maxLength)) throw invalidArgument(field, 'max-length', `${field} must be at most ${maxLength} characters`);
  // Postgres text and jsonb cannot hold U+0000; reject it here rather than fail inside the database.
  if (value.includes('\u0000')) throw invalidArgument(field, 'characters', `${field} must not contain NUL characters`);
}

/** Counts Unicode code points (as JSON Schema's maxLength does), cheaply for the usual short string. */
export function withinLength(value: string, maxLength: number): boolean {
  if (value.length <= maxLength) return true;
  if (value.length > maxLength * 2) return false;
  let count = 0;
  for (const _ of value) if (++count > maxLength) return false;
  return true;
}

function checkProperties(field: string, properties: PropertyInput[]): void {
  if (properties.length > LIMITS.propertiesMaxCount) {
    throw invalidArgument(field, 'max-properties', `${field} must have at most ${LIMITS.propertiesMaxCount} entries`);
  }
  const seen = new Set<string>();
  for (const { key, value } of properties) {
    if (!withinLength(key, LIMITS.propertyKeyMaxLength)) {
      throw invalidArgument(field, 'key-max-length', `${field} keys must be at most ${LIMITS.propertyKeyMaxLength} characters`);
    }
    if (key.includes('\u0000')) throw invalidArgument(field, 'characters', `${field} keys must not contain NUL characters`);
    const named = `${field} ${JSON.stringify(key)}`;
    if (key === BASE64_IMAGE_KEY) {
      throw invalidArgument(field, 'reserved', `${named} is reserved: store the image with the media service and send its URL in images`);
    }
    if (seen.has(key)) throw invalidArgument(field, 'duplicate', `${named} appears more than once`);
    seen.add(key);
    if (!withinLength(value, LIMITS.propertyValueMaxLength)) {
      throw invalidArgument(field, 'max-length', `${named} must be at most ${LIMITS.propertyValueMaxLength} characters`);
    }
    if (value.includes('\u0000')) throw invalidArgument(field, 'characters', `${named} must not contain NUL characters`);
  }
}

function checkUrls(field: string, urls: string[], maxItems: number): void {
  if (urls.length > maxItems) throw invalidArgument(field, 'max-items', `${field} must have at most ${maxItems} entries`);
  urls.forEach((url, i) => bounded(`${field}[${i}]`, url, LIMITS.urlMaxLength));
}
