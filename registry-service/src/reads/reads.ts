import { AppError, LIMITS, invalidArgument, quoteName } from '@dynamic-events/proto';
import type pg from 'pg';
import { findDevice } from '../db/queries/devices.js';
import { findEventType } from '../db/queries/event-types.js';
import { findEvent, type StoredEvent } from '../db/queries/events.js';
import { findObject } from '../db/queries/objects.js';
import type { DeviceRecord, EventRecord, EventTypeRecord, ObjectRecord } from '../model.js';
import { objectRel } from '../model.js';
import { isUuid } from '../uuid-v7.js';
import { withinLength } from '../ingest/validate-event.js';

/** Lookups for other platform services and the gateway's read endpoints; unknown → NOT_FOUND. */
export interface Reader {
  getEvent(id: string): Promise<EventRecord>;
  getDevice(deviceName: string): Promise<DeviceRecord>;
  getObject(id: string): Promise<ObjectRecord>;
  getEventType(domain: string, eventType: string): Promise<EventTypeRecord>;
}

/** A full object id is a name, a dot and a name. */
const OBJECT_ID_MAX = LIMITS.nameMaxLength * 2 + 1;

function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}

/** Empty is a caller error; a value no stored entity can have (too long, NUL) is simply not found. */
function lookupKey(field: string, value: string, maxLength: number): boolean {
  if (value === '') throw invalidArgument(field, 'required', `${field} is required`);
  return withinLength(value, maxLength) && !value.includes('\u0000');
}

/** Quotes a caller-supplied name for a message (bounded by the checks above; no bidi mark or control raw). */
const quote = (value: string): string => quoteName(value, '"');

export function createReader(pool: pg.Pool): Reader {
  return {
    async getEvent(id) {
      if (id === '') throw invalidArgument('id', 'required', 'id is required');
      // Anything but a UUID cannot name an event; checking here also keeps pg cast errors away.
      const stored = isUuid(id) ? await findEvent(pool, id) : undefined;
      if (!stored) throw notFound(isUuid(id) ? `event ${id}` : 'event');
      return toEventRecord(stored);
    },
    async getDevice(deviceName) {
      const device = lookupKey('device_name', deviceName, LIMITS.nameMaxLength) ? await findDevice(pool, deviceName) : undefined;
      if (!device) throw notFound(`device ${quote(deviceName.slice(0, LIMITS.nameMaxLength))}`);
      return device;
    },
    async getObject(id) {
      const object = lookupKey('id', id, OBJECT_ID_MAX) ? await findObject(pool, id) : undefined;
      if (!object) throw notFound(`object ${quote(id.slice(0, OBJECT_ID_MAX))}`);
      return object;
    },
    async getEventType(domain, eventType) {
      const known = lookupKey('domain', domain, LIMITS.nameMaxLength) && lookupKey('event_type', eventType, LIMITS.nameMaxLength);
      const found = known ? await findEventType(pool, domain, eventType) : undefined;
      if (!found) throw notFound(`event type ${quote(eventType.slice(0, LIMITS.nameMaxLength))} in domain ${quote(domain.slice(0, LIMITS.nameMaxLength))}`);
      return found;
    },
  };
}

/** A stored event as the domain returns it (reads, and replays of an Idempotency-Key). */
export function toEventRecord(stored: StoredEvent): EventRecord {
  const prefix = `${stored.domain}.`;
  return {
    id: stored.id,
    domain: stored.domain,
    eventType: stored.eventType,
    deviceName: stored.deviceName,
    objectId: stored.objectRef.startsWith(prefix) ? stored.objectRef.slice(prefix.length) : stored.objectRef,
    rels: [objectRel(stored.objectRef)],
    images: stored.images,
    videoClips: stored.videoClips,
    properties: stored.properties,
    tokenId: stored.tokenId,
    occurredAtMicros: stored.occurredUs,
    createdAtMicros: stored.createdUs,
    updatedAtMicros: stored.updatedUs,
  };
}
