import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api.js';
import { objectOf } from './format.js';
import type { EventJson, EventTypeJson, ObjectJson } from './model.js';

/** What the Events table shows beside an event's ids: its objects' device and its type's display name. */
export interface EntityNames {
  /** The devices of the event's objects, once read ('' while unknown). */
  deviceOf: (event: EventJson) => string;
  /** The event type's display name, once read (its id until then, or when it cannot be read). */
  displayNameOf: (event: EventJson) => string;
}

const objectKey = (id: string) => `o ${id}`;
const typeKey = (event: EventJson) => `t ${event.domain}/${event.event_type}`;

/**
 * Reads each object and event type the rows name once (GET /objects/{id}, GET /event-types/{domain}/{type})
 * and keeps the answers for the screen's life: an event names its objects, not their device. A
 * failed read leaves the id shown.
 */
export function useEntityNames(api: Api, rows: EventJson[]): EntityNames {
  const known = useRef(new Map<string, string>());
  const [, setVersion] = useState(0);
  useEffect(() => {
    const ask = (key: string, path: string, pick: (answer: never) => string) => {
      if (known.current.has(key)) return;
      known.current.set(key, '');
      api.get<never>(path).then(
        (answer) => {
          known.current.set(key, pick(answer));
          setVersion((n) => n + 1);
        },
        () => undefined,
      );
    };
    for (const event of rows) {
      for (const rel of event.rels) ask(objectKey(objectOf(rel)), `/objects/${encodeURIComponent(objectOf(rel))}`, (o: ObjectJson) => o.device_name);
      ask(typeKey(event), `/event-types/${encodeURIComponent(event.domain)}/${encodeURIComponent(event.event_type)}`, (t: EventTypeJson) => t.display_name);
    }
  }, [api, rows]);
  return {
    deviceOf: (event) => [...new Set(event.rels.map((rel) => known.current.get(objectKey(objectOf(rel))) ?? ''))].filter(Boolean).join(', '),
    displayNameOf: (event) => known.current.get(typeKey(event)) || event.event_type,
  };
}
