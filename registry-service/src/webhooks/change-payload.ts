import { domainAllowed, formatTimestamp, presentDevice, presentEvent, presentEventType, presentObject, timestampFromMicros } from '@dynamic-events/proto';
import type { Change } from '../watch/commit-feed.js';
import type { ChangeKind, WebhookFilter } from './webhook-model.js';

const KIND_OF: Record<Change['kind'], ChangeKind> = { event: 'event.created', device: 'device.created', object: 'object.created', event_type: 'event_type.created' };

export const changeKind = (change: Change): ChangeKind => KIND_OF[change.kind];

const at = (micros: bigint): string => formatTimestamp(timestampFromMicros(micros));
const creator = (id: string | undefined): string | null => id ?? null;
const seen = (micros: bigint | undefined): string | null => (micros === undefined ? null : at(micros));

/** The record of a change as its GET answers it (the HTTP API's presenters), and when it was made. */
function dataOf(change: Change): { data: unknown; createdAtMicros: bigint } {
  switch (change.kind) {
    case 'event': {
      const e = change.event;
      const occurredAt = e.occurredAtMicros === undefined ? null : at(e.occurredAtMicros);
      const source = { ...e, createdAt: at(e.createdAtMicros), updatedAt: at(e.updatedAtMicros), tokenId: creator(e.tokenId), occurredAt };
      return { data: presentEvent(source), createdAtMicros: e.createdAtMicros };
    }
    case 'device': {
      const d = change.device;
      return { data: presentDevice({ ...d, createdAt: at(d.createdAtMicros), updatedAt: at(d.updatedAtMicros), createdByTokenId: creator(d.createdByTokenId), lastSeenAt: seen(d.lastSeenAtMicros) }), createdAtMicros: d.createdAtMicros };
    }
    case 'object': {
      const o = change.object;
      return { data: presentObject({ ...o, createdAt: at(o.createdAtMicros), updatedAt: at(o.updatedAtMicros), createdByTokenId: creator(o.createdByTokenId), lastSeenAt: seen(o.lastSeenAtMicros) }), createdAtMicros: o.createdAtMicros };
    }
    case 'event_type': {
      const t = change.eventType;
      return { data: presentEventType({ ...t, createdAt: at(t.createdAtMicros), updatedAt: at(t.updatedAtMicros), createdByTokenId: creator(t.createdByTokenId) }), createdAtMicros: t.createdAtMicros };
    }
  }
}

/** The request body a receiver gets: {"type", "timestamp" (the change's time), "data"}. Images are URLs. */
export function changeBody(change: Change): string {
  const { data, createdAtMicros } = dataOf(change);
  return JSON.stringify({ type: changeKind(change), timestamp: at(createdAtMicros), data });
}

/**
 * Whether a webhook's filter takes a change. A filter field applies to the records that have it; a
 * record without the field does not match (a device has no domain or event type, an object no event
 * type, an event type no device), as in a Watch's filter. Domains match as token policies do.
 */
export function filterTakes(filter: WebhookFilter, change: Change): boolean {
  if (!filter.kinds.includes(changeKind(change))) return false;
  const has = (list: string[] | undefined, value: string | undefined) => list === undefined || (value !== undefined && list.includes(value));
  const inDomain = (domain: string | undefined) => filter.domains === undefined || (domain !== undefined && domainAllowed(filter.domains, domain));
  const fields = fieldsOf(change);
  return inDomain(fields.domain) && has(filter.eventTypes, fields.eventType) && has(filter.deviceNames, fields.deviceName);
}

function fieldsOf(change: Change): { domain?: string; eventType?: string; deviceName?: string } {
  switch (change.kind) {
    case 'event':
      return { domain: change.event.domain, eventType: change.event.eventType, deviceName: change.event.deviceName };
    case 'device':
      return { deviceName: change.device.deviceName };
    case 'object':
      return { domain: change.object.objectDomain, deviceName: change.object.deviceName };
    case 'event_type':
      return { domain: change.eventType.domain, eventType: change.eventType.eventType };
  }
}

/** The event id of an event.created change, for the delivery log's event_id filter. */
export const eventIdOf = (change: Change): string | undefined => (change.kind === 'event' ? change.event.id : undefined);
