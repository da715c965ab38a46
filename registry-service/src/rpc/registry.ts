import { invalidArgument, registry, timestampFromMicros, type AsyncServiceImpl } from '@dynamic-events/proto';
import type { Reader } from '../domain/reads.js';
import type { EventRecorder } from '../domain/record-events.js';
import type { DeviceRecord, EventDraft, EventRecord, EventTypeRecord, ObjectRecord, Outcome } from '../domain/types.js';
import { validateBatchSize, validateEvent } from '../domain/validate-event.js';

export interface RegistryHandlerDeps {
  recorder: EventRecorder;
  reader: Reader;
}

/** The full service name, for addService and the health endpoint. */
export const REGISTRY_SERVICE_NAME = 'dynamic_events.registry.v1.RegistryService';

/** RegistryService handlers: the only place that maps protobuf messages to domain types and back. */
export function createRegistryHandlers(deps: RegistryHandlerDeps): AsyncServiceImpl<registry.RegistryServiceServer> {
  const { recorder, reader } = deps;
  return {
    async recordEvent(request) {
      if (!request.event) throw invalidArgument('event', 'required', 'event is required');
      const [recorded] = await recorder.record([validateEvent(toDraft(request.event))]);
      if (!recorded) throw new Error('recorder returned no event');
      return { event: toEvent(recorded.event), outcome: toOutcome(recorded.outcome) };
    },
    async recordEvents(request) {
      validateBatchSize(request.events.length);
      const events = request.events.map((event, i) => validateEvent(toDraft(event), `events[${i}].`));
      const recorded = await recorder.record(events);
      return { events: recorded.map((r) => toEvent(r.event)), outcomes: recorded.map((r) => toOutcome(r.outcome)) };
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
  };
}

function toDraft(event: registry.NewEvent): EventDraft {
  return {
    source: event.source && { ...event.source },
    eventType: event.eventType && { ...event.eventType },
    properties: event.additionalProperties.map(({ key, value }) => ({ key, value })),
    images: event.images,
    videoClips: event.videoClips,
  };
}

function toEvent(event: EventRecord): registry.Event {
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
  };
}

function toOutcome(outcome: Outcome): registry.Outcome {
  return { ...outcome };
}

function toDevice(device: DeviceRecord): registry.Device {
  return {
    deviceName: device.deviceName,
    kind: device.kind,
    createdAt: timestampFromMicros(device.createdAtMicros),
    updatedAt: timestampFromMicros(device.updatedAtMicros),
  };
}

function toObject(object: ObjectRecord): registry.SourceObject {
  return {
    id: object.id,
    objectId: object.objectId,
    objectDomain: object.objectDomain,
    objectName: object.objectName,
    objectType: object.objectType,
    deviceName: object.deviceName,
    createdAt: timestampFromMicros(object.createdAtMicros),
    updatedAt: timestampFromMicros(object.updatedAtMicros),
  };
}

function toEventType(type: EventTypeRecord): registry.EventType {
  return {
    domain: type.domain,
    eventType: type.eventType,
    displayName: type.displayName,
    displayDescription: type.displayDescription,
    createdAt: timestampFromMicros(type.createdAtMicros),
    updatedAt: timestampFromMicros(type.updatedAtMicros),
  };
}
