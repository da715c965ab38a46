import { BASE64_IMAGE_KEY } from './limits.js';

/**
 * The HTTP API's JSON shapes of events, devices, objects and event types, built from records whose
 * timestamps are already RFC 3339 text (formatTimestamp). The gateway answers its GETs, lists and
 * stream with them and the registry signs webhook payloads with them, so a receiver gets a record
 * exactly as its GET answers it.
 */
export interface EventSource {
  id: string;
  domain: string;
  eventType: string;
  rels: string[];
  images: string[];
  videoClips: string[];
  properties: Array<{ key: string; value: string }>;
  createdAt: string;
  updatedAt: string;
  /** The token that sent it; null when none did. */
  tokenId: string | null;
  /** When it happened, by the device's clock, in createdAt's form; null when none was sent. */
  occurredAt: string | null;
}

/** The event resource as the spec (2.4) shows it. */
export interface EventJson {
  id: string;
  domain: string;
  event_type: string;
  rels: string[];
  images: string[];
  video_clips: string[];
  event_additional_properties: Record<string, string>;
  created_at: string;
  updated_at: string;
  /** The token that sent it (null: none did); not in the spec's example (tokens add it). */
  token_id: string | null;
  /** When it happened, by the device's clock, in created_at's form (null: not sent). */
  occurred_at: string | null;
}

/**
 * Spec shape of an event. Properties go through Object.fromEntries, which defines own data
 * properties: a key such as "__proto__" is echoed as data and never changes a prototype.
 */
export function presentEvent(event: EventSource): EventJson {
  const properties: Array<[string, string]> = [];
  for (const { key, value } of event.properties) if (key !== BASE64_IMAGE_KEY) properties.push([key, value]);
  // The arrays are shared, not copied: the JSON is written at once and records are never changed.
  return {
    id: event.id,
    domain: event.domain,
    event_type: event.eventType,
    rels: event.rels,
    images: event.images,
    video_clips: event.videoClips,
    event_additional_properties: Object.fromEntries(properties),
    created_at: event.createdAt,
    updated_at: event.updatedAt,
    token_id: event.tokenId,
    occurred_at: event.occurredAt,
  };
}

interface Stamped {
  createdAt: string;
  updatedAt: string;
  /** The token whose event created it; null when none did. */
  createdByTokenId: string | null;
}

/** When its latest event was recorded, at most about a minute behind it; null before its first is counted. */
interface LastSeen {
  lastSeenAt: string | null;
}

export interface DeviceSource extends Stamped, LastSeen {
  deviceName: string;
  kind: string;
}

export interface ObjectSource extends Stamped, LastSeen {
  id: string;
  objectId: string;
  objectDomain: string;
  objectName: string;
  objectType: string;
  deviceName: string;
}

export interface EventTypeSource extends Stamped {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
}

/** GET …/dh/devices/{device_name}. */
export function presentDevice(device: DeviceSource) {
  return { device_name: device.deviceName, kind: device.kind, created_at: device.createdAt, updated_at: device.updatedAt, created_by_token_id: device.createdByTokenId, last_seen_at: device.lastSeenAt };
}

/** GET …/dh/objects/{object_domain}.{object_id}. */
export function presentObject(object: ObjectSource) {
  return {
    id: object.id,
    object_id: object.objectId,
    object_domain: object.objectDomain,
    object_name: object.objectName,
    object_type: object.objectType,
    device_name: object.deviceName,
    created_at: object.createdAt,
    updated_at: object.updatedAt,
    created_by_token_id: object.createdByTokenId,
    last_seen_at: object.lastSeenAt,
  };
}

/** GET …/dh/event-types/{domain}/{event_type}. */
export function presentEventType(type: EventTypeSource) {
  return {
    domain: type.domain,
    event_type: type.eventType,
    display_name: type.displayName,
    display_description: type.displayDescription,
    created_at: type.createdAt,
    updated_at: type.updatedAt,
    created_by_token_id: type.createdByTokenId,
  };
}
