import type { StoredEvent } from '../db/queries/events.js';
import { objectRel, type EventRecord } from './types.js';

/** A stored event as the record callers see (object id inside its domain, rels from the object). */
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
    createdAtMicros: stored.createdUs,
    updatedAtMicros: stored.updatedUs,
  };
}
