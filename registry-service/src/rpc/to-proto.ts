import { registry, timestampFromMicros } from '@dynamic-events/proto';
import type { DeviceRecord, EventRecord, EventTypeRecord, ObjectRecord, Outcome, RecordedEvent } from '../model.js';
import type { PositionedChange } from '../watch/watch.js';
import { WATCH_KINDS } from './from-proto.js';

/* Domain records → protobuf messages: the only place besides the handlers that knows protobuf types. */

export function toEvent(event: EventRecord): registry.Event {
  return {
    id: event.id,
    domain: event.domain,
    eventType: event.eventType,
    rels: event.rels,
    images: event.images,
    videoClips: event.videoClips,
    additionalProperties: event.properties.map(({ key, value }) => ({ key, value })),
    createdAt: timestampFromMicros(event.createdAtMicros),
    updatedAt: timestampFromMicros(event.updatedAtMicros),
    deviceName: event.deviceName,
    objectId: event.objectId,
    tokenId: event.tokenId ?? '',
    occurredAt: event.occurredAtMicros === undefined ? undefined : timestampFromMicros(event.occurredAtMicros),
  };
}

function toOutcome(outcome: Outcome): registry.Outcome {
  return { ...outcome };
}

export function toRecorded(recorded: RecordedEvent): registry.RecordEventResponse {
  return { event: toEvent(recorded.event), outcome: toOutcome(recorded.outcome) };
}

export function toDevice(device: DeviceRecord): registry.Device {
  return {
    deviceName: device.deviceName,
    kind: device.kind,
    createdAt: timestampFromMicros(device.createdAtMicros),
    updatedAt: timestampFromMicros(device.updatedAtMicros),
    createdByTokenId: device.createdByTokenId ?? '',
    lastSeenAt: device.lastSeenAtMicros === undefined ? undefined : timestampFromMicros(device.lastSeenAtMicros),
  };
}

export function toObject(object: ObjectRecord): registry.SourceObject {
  return {
    id: object.id,
    objectId: object.objectId,
    objectDomain: object.objectDomain,
    objectName: object.objectName,
    objectType: object.objectType,
    deviceName: object.deviceName,
    createdAt: timestampFromMicros(object.createdAtMicros),
    updatedAt: timestampFromMicros(object.updatedAtMicros),
    createdByTokenId: object.createdByTokenId ?? '',
    lastSeenAt: object.lastSeenAtMicros === undefined ? undefined : timestampFromMicros(object.lastSeenAtMicros),
  };
}

export function toEventType(type: EventTypeRecord): registry.EventType {
  return {
    domain: type.domain,
    eventType: type.eventType,
    displayName: type.displayName,
    displayDescription: type.displayDescription,
    createdAt: timestampFromMicros(type.createdAtMicros),
    updatedAt: timestampFromMicros(type.updatedAtMicros),
    createdByTokenId: type.createdByTokenId ?? '',
  };
}

/** One change as the wire carries it. */
export function toWatchChange({ cursor, change }: PositionedChange): registry.WatchChange {
  const kind = WATCH_KINDS.get(change.kind) ?? registry.WatchKind.WATCH_KIND_UNSPECIFIED;
  switch (change.kind) {
    case 'event':
      return { cursor, kind, event: toEvent(change.event) };
    case 'device':
      return { cursor, kind, device: toDevice(change.device) };
    case 'object':
      return { cursor, kind, object: toObject(change.object) };
    case 'event_type':
      return { cursor, kind, eventType: toEventType(change.eventType) };
  }
}
