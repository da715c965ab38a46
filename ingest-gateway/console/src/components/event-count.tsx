import { useEffect, useState } from 'preact/hooks';
import type { Api, Query } from '../api.js';
import { RANGES, windowOf, type CountsJson } from '../counts.js';
import { screenHref } from '../routes.js';
import { visible } from '../visible-text.js';

/** The range an entity's event count covers: the longest quick range, 30 days. */
const RANGE = RANGES[RANGES.length - 1] as (typeof RANGES)[number];
export const COUNT_HEADING = `Events (${RANGE.label})`;

/**
 * How many events matched `filters` (the list filters: device_name, object, domain, event_type)
 * over the last 30 days, as a link to them on the Events screen; "…" while read, "?" when refused.
 */
export function EventCount({ api, filters, label }: { api: Api; filters: Query; label: string }) {
  const [count, setCount] = useState<string>('…');
  const key = JSON.stringify(filters);
  useEffect(() => {
    let live = true;
    const window = windowOf(RANGE, Date.now());
    api.get<CountsJson>('/dynamic-events/counts', { ...filters, ...window, group_by: 'event_type' }).then(
      (answer) => live && setCount(String(answer.buckets.reduce((sum, bucket) => sum + bucket.total, 0))),
      () => live && setCount('?'),
    );
    return () => {
      live = false;
    };
  }, [api, key]);
  return (
    <a href={screenHref('events', filters)} aria-label={`${count} events of ${visible(label)} in ${RANGE.label}`}>
      {count}
    </a>
  );
}
