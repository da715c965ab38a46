/** Domain types: what the registry stores and returns, independent of protobuf. */

interface SourceInput {
  deviceName: string;
  objectId: string;
  objectDomain: string;
  objectName: string;
  objectType: string;
}

interface EventTypeInput {
  eventType: string;
  displayName: string;
  displayDescription: string;
}

/** A custom property; a list of pairs keeps the caller's order and treats every key as plain data. */
export interface PropertyInput {
  key: string;
  value: string;
}

/**
 * A caller's Idempotency-Key with the fingerprint of the request that carried it. `scope` is the
 * sending token's id ('' for a call without a token); keys are unique per (scope, key).
 */
export interface IdempotencyKey {
  scope: string;
  key: string;
  requestHash: string;
}

/** An event as a caller sent it, before validation (absent messages are undefined). */
export interface EventDraft {
  source: SourceInput | undefined;
  eventType: EventTypeInput | undefined;
  properties: PropertyInput[];
  images: string[];
  videoClips: string[];
  /** Undefined when the caller sent no key (the usual case: nothing to check, nothing extra to write). */
  idempotency: IdempotencyKey | undefined;
  /** The token that sent the event (a UUID); undefined when none did. */
  tokenId: string | undefined;
  /** When it happened, as sent (protobuf Timestamp fields); undefined when not sent. */
  occurredAt: { seconds: string; nanos: number } | undefined;
}

/** An event that passed validation. */
export interface NewEvent {
  source: SourceInput;
  eventType: EventTypeInput;
  properties: PropertyInput[];
  images: string[];
  videoClips: string[];
  idempotency: IdempotencyKey | undefined;
  /** The token that sent it: its policy applies, and it is recorded on the event and what it creates. */
  tokenId: string | undefined;
  /** When it happened, microseconds since the epoch (OccurredAtRule); undefined when not sent. */
  occurredAtMicros?: bigint;
}

/** Timestamps are microseconds since the epoch: Postgres precision, which a JS Date would cut to milliseconds. */
interface Timestamps {
  createdAtMicros: bigint;
  updatedAtMicros: bigint;
}

/** Who created an entity: the token whose event did; undefined when none did. */
interface CreatedBy {
  createdByTokenId: string | undefined;
}

/** When an entity's latest event was recorded (the counts' pass keeps it); undefined before its first is counted. */
interface LastSeen {
  lastSeenAtMicros: bigint | undefined;
}

export interface DeviceRecord extends Timestamps, CreatedBy, LastSeen {
  deviceName: string;
  kind: string;
}

export interface ObjectRecord extends Timestamps, CreatedBy, LastSeen {
  /** Full identifier "{object_domain}.{object_id}". */
  id: string;
  objectId: string;
  objectDomain: string;
  objectName: string;
  objectType: string;
  deviceName: string;
}

export interface EventTypeRecord extends Timestamps, CreatedBy {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
}

export interface EventRecord extends Timestamps {
  id: string;
  /** The object domain as sent (also the event type's domain). */
  domain: string;
  eventType: string;
  deviceName: string;
  /** The object id inside its domain, as sent. */
  objectId: string;
  rels: string[];
  images: string[];
  videoClips: string[];
  properties: PropertyInput[];
  /** The token that sent it; undefined when none did. */
  tokenId: string | undefined;
  /** When it happened, by the device's clock; undefined when none was sent. */
  occurredAtMicros?: bigint;
}

/** Which entities a call created; false means an existing one was reused unchanged. */
export interface Outcome {
  deviceCreated: boolean;
  objectCreated: boolean;
  eventTypeCreated: boolean;
}

export interface RecordedEvent {
  event: EventRecord;
  outcome: Outcome;
}

/** The full object identifier "{object_domain}.{object_id}" (the shared rule's definition). */
export { fullObjectId } from '@dynamic-events/proto';

/**
 * The relation an event carries to its object: a path whose last segment is the full id,
 * percent-encoded, so ids holding "?", "#", "/" or "%" still resolve to their object.
 */
export function objectRel(fullId: string): string {
  return `/objects/${encodeURIComponent(fullId)}`;
}
