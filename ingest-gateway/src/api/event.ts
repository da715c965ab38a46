import { BASE64_IMAGE_KEY } from '@dynamic-events/proto';
import type { RecordedEvent } from '../model.js';

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
export function presentEvent(event: RecordedEvent): EventJson {
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
