import type { DeviceSource, EventSource, EventTypeSource, ObjectSource } from '@dynamic-events/proto';
/**
 * The gateway's own plain types. Protobuf types stop in clients/*.ts: routes, validation and
 * presenters only see these, so a contract change touches one mapping per client.
 */

/** The source of an event, as sent (values stored exactly as sent, never trimmed). */
interface SourceInput {
  deviceName: string;
  objectId: string;
  objectDomain: string;
  objectName: string;
  objectType: string;
}

/** The event type as sent; applied by the registry only when the type is new in its domain. */
interface EventTypeInput {
  eventType: string;
  displayName: string;
  displayDescription: string;
}

/** One custom property; a list of pairs so any key (`__proto__` included) is plain data. */
interface PropertyPair {
  key: string;
  value: string;
}

/** A validated event ready for the registry (base64_image already removed and stored). */
export interface EventInput {
  source: SourceInput;
  eventType: EventTypeInput;
  properties: PropertyPair[];
  images: string[];
  videoClips: string[];
  /** Set only when the request carried an Idempotency-Key. */
  idempotency?: IdempotencyInput;
  /** The token that sent it (TokenService id); undefined: none, or the bootstrap token before the registry knows it. */
  tokenId?: string;
  /** When it happened, by the device's clock (event.occurred_at); undefined: not sent. */
  occurredAt?: Instant;
}

/** A request's Idempotency-Key and the fingerprint of its body (sha256, hex). */
export interface IdempotencyInput {
  key: string;
  requestHash: string;
}

/**
 * Recorded events and registered entities, timestamps as RFC 3339 UTC strings with nine fractional
 * digits: the shapes the shared JSON presenters read (the registry's webhook payloads use them too).
 */
export type RecordedEvent = EventSource;
export type DeviceRecord = DeviceSource;
export type ObjectRecord = ObjectSource;
export type EventTypeRecord = EventTypeSource;

/** What the media service answered for a stored image. */
export interface StoredImage {
  /** Content-addressed key; the public URL is the gateway's own (routes/media.ts mediaUrl). */
  key: string;
  contentType: string;
  sizeBytes: number;
}

/** Per-call settings every client method takes: the request id travels to the service's logs. */
export interface CallOptions {
  requestId: string;
  /** Aborted when the HTTP client goes away: a media stream is cancelled at once. */
  signal?: AbortSignal;
  /** True once the HTTP client went away: an event not yet sent is dropped. */
  gone?: { readonly aborted: boolean };
}

/** An instant as protobuf carries it (RFC 3339 query values are parsed to this, exactly). */
export interface Instant {
  seconds: string;
  nanos: number;
}

/** Filters of the event list and stream; undefined fields do not filter. */
/** GET …/counts: the bucket width and what each bucket is split by (none: totals only). */
export interface CountQuery {
  bucket: 'minute' | 'hour' | 'day';
  groupBy: 'event_type' | 'domain' | 'device_name' | undefined;
}

/** The counts answer: buckets oldest first, starts in RFC 3339; `other` per bucket and overall. */
export interface EventCounts {
  buckets: Array<{ start: string; total: number; groups: Record<string, number>; other: number }>;
  other: number;
  groups: string[];
}

export interface EventQuery {
  deviceName?: string;
  /** Full object id "{object_domain}.{object_id}". */
  object?: string;
  domain?: string;
  eventType?: string;
  since?: Instant;
  until?: Instant;
  /** The token that sent the events (or created the entities, in the stream). */
  tokenId?: string;
  /** Object domains matching one of these patterns (a token policy's rules); empty: none. */
  domainPatterns?: readonly string[];
  /** occurred_at range (inclusive, exclusive): the list only, never the stream. */
  occurredSince?: Instant;
  occurredUntil?: Instant;
}

/** One page of a list; `nextPageToken` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

/** Paging of every list: limit 1–1000, an opaque token from the previous page. */
export interface PageQuery {
  limit: number;
  pageToken: string;
}

/** What a watch stream reports. */
export type ChangeKind = 'event.created' | 'device.created' | 'object.created' | 'event_type.created';

/** A created record with its cursor. */
export type WatchChange =
  | { cursor: string; kind: 'event.created'; event: RecordedEvent }
  | { cursor: string; kind: 'device.created'; device: DeviceRecord }
  | { cursor: string; kind: 'object.created'; object: ObjectRecord }
  | { cursor: string; kind: 'event_type.created'; eventType: EventTypeRecord };

/** A message of a watch: changes read together, or none in a keep-alive; `cursor` is where a resume continues. */
export interface WatchMessage {
  cursor: string;
  changes: WatchChange[];
}
