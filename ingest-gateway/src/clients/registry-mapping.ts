import { formatTimestamp, type registry } from '@dynamic-events/proto';
import type { DeviceRecord, EventTypeRecord, ObjectRecord, RecordedEvent } from '../model.js';

/* Registry protobuf messages → gateway records (the only place besides the clients that sees them). */

/**
 * A decoded message is this mapping's alone (nothing else holds it), so its arrays are taken as
 * they are: copying them is a measurable share of a list's cost (100 events per page).
 */
export function toRecordedEvent(event: registry.Event): RecordedEvent {
  return {
    id: event.id,
    domain: event.domain,
    eventType: event.eventType,
    rels: event.rels,
    images: event.images,
    videoClips: event.videoClips,
    properties: event.additionalProperties,
    createdAt: formatTimestamp(event.createdAt),
    updatedAt: formatTimestamp(event.updatedAt),
    tokenId: event.tokenId === '' ? null : event.tokenId,
    occurredAt: event.occurredAt === undefined ? null : formatTimestamp(event.occurredAt),
  };
}

const creator = (tokenId: string): string | null => (tokenId === '' ? null : tokenId);

export function toDeviceRecord(device: registry.Device): DeviceRecord {
  return {
    deviceName: device.deviceName,
    kind: device.kind,
    createdAt: formatTimestamp(device.createdAt),
    updatedAt: formatTimestamp(device.updatedAt),
    createdByTokenId: creator(device.createdByTokenId),
    lastSeenAt: device.lastSeenAt ? formatTimestamp(device.lastSeenAt) : null,
  };
}

export function toObjectRecord(object: registry.SourceObject): ObjectRecord {
  return {
    id: object.id,
    objectId: object.objectId,
    objectDomain: object.objectDomain,
    objectName: object.objectName,
    objectType: object.objectType,
    deviceName: object.deviceName,
    createdAt: formatTimestamp(object.createdAt),
    updatedAt: formatTimestamp(object.updatedAt),
    createdByTokenId: creator(object.createdByTokenId),
    lastSeenAt: object.lastSeenAt ? formatTimestamp(object.lastSeenAt) : null,
  };
}

export function toEventTypeRecord(type: registry.EventType): EventTypeRecord {
  return {
    domain: type.domain,
    eventType: type.eventType,
    displayName: type.displayName,
    displayDescription: type.displayDescription,
    createdAt: formatTimestamp(type.createdAt),
    updatedAt: formatTimestamp(type.updatedAt),
    createdByTokenId: creator(type.createdByTokenId),
  };
}

/** A response without its message is a contract violation: a plain Error, so the caller sees a 500. */
export function required<T>(value: T | undefined, method: string, field: string): T {
  if (value === undefined) throw new Error(`registry ${method} response has no ${field}`);
  return value;
}
