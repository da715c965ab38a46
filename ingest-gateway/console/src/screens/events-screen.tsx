import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import { FilterForm } from '../components/filter-form.js';
import { useEventFeed, type EventFilters } from '../event-feed.js';
import { streamText } from '../stream-text.js';
import { utcText, utcTyped } from '../format.js';
import type { EventJson, TokenJson } from '../model.js';
import { EventDetails } from './event-details.js';
import { EventTable } from './event-table.js';
import { useEntityNames } from '../entity-names.js';

interface EventsScreenProps {
  api: Api;
  names: ReadonlyMap<string, string>;
  tokens: TokenJson[];
  /** Filters from the link that opened the screen (the API's names; `event`: an event to open). */
  params: Record<string, string>;
}

const FIELDS = [
  { name: 'device_name', label: 'Device' },
  { name: 'object', label: 'Object' },
  { name: 'domain', label: 'Domain' },
  { name: 'event_type', label: 'Event type' },
  { name: 'since', label: 'Since (UTC)', hint: 'UTC, as YYYY-MM-DD HH:MM', placeholder: 'YYYY-MM-DD HH:MM' },
  { name: 'until', label: 'Until (UTC)', hint: 'UTC, as YYYY-MM-DD HH:MM, exclusive', placeholder: 'YYYY-MM-DD HH:MM' },
] as const;
const FILTERS = ['device_name', 'object', 'domain', 'event_type', 'token_id', 'since', 'until'] as const;

/** The form's values (times typed in UTC) as the API's filters, or the label of a time that does not read as one. */
function filtersOf(values: Record<string, string>): { filters: EventFilters } | { wrong: string } {
  const filters: EventFilters = {};
  for (const name of FILTERS) {
    const value = values[name]?.trim() ?? '';
    if (value === '') continue;
    if (name !== 'since' && name !== 'until') filters[name] = value;
    else {
      const instant = utcTyped(value);
      if (instant === undefined) return { wrong: name === 'since' ? 'Since' : 'Until' };
      filters[name] = instant;
    }
  }
  return { filters };
}

/** A link's filters as the form's values: its instants as typed in UTC. */
function valuesOf(params: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = params[name];
    if (value !== undefined) values[name] = name === 'since' || name === 'until' ? utcText(value) : value;
  }
  return values;
}

/** Events: filters, live following, history paging back, and one event's details. */
export function EventsScreen({ api, names, tokens, params }: EventsScreenProps) {
  const initial = valuesOf(params);
  const [filters, setFilters] = useState<EventFilters>(() => {
    const read = filtersOf(initial);
    return 'filters' in read ? read.filters : {};
  });
  const [wrong, setWrong] = useState<string | undefined>();
  const [follow, setFollow] = useState(true);
  const [selected, setSelected] = useState<EventJson | undefined>();
  const feed = useEventFeed(api, filters, follow);
  const lookups = useEntityNames(api, feed.rows);
  useEffect(() => {
    if (selected) document.getElementById('event-details')?.focus();
  }, [selected?.id]);
  useEffect(() => {
    if (params.event === undefined) return;
    api.get<EventJson>(`/dynamic-events/${encodeURIComponent(params.event)}`).then(setSelected, (err: unknown) => setWrong(err instanceof ApiError ? err.message : String(err)));
  }, []);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Events</h1>
      <FilterForm
        fields={FIELDS}
        initial={initial}
        onApply={(values) => {
          const read = filtersOf(values);
          setWrong('wrong' in read ? `${read.wrong} must be a UTC time written YYYY-MM-DD HH:MM (seconds optional).` : undefined);
          if ('filters' in read) setFilters(read.filters);
        }}
        extra={(values, set) => (
          <div class="field">
            <label for="filter-token">Token</label>
            <select id="filter-token" value={values.token_id ?? ''} onChange={(e) => set('token_id', e.currentTarget.value)}>
              <option value="">Any token</option>
              {tokens.map((token) => (
                <option key={token.id} value={token.id}>
                  {token.name}
                </option>
              ))}
            </select>
          </div>
        )}
      />
      <p class="hint">Times are UTC, typed YYYY-MM-DD HH:MM (Until exclusive); Object is the full id, domain.object_id. Live following has no Until.</p>
      {wrong && (
        <p role="alert" class="error">
          {wrong}
        </p>
      )}
      <div class="live-bar">
        <label class="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
          Follow live
        </label>
        <p role="status" class={`stream-${feed.stream.kind}`}>
          {streamText(feed.stream)}
        </p>
      </div>
      {feed.error && (
        <p role="alert" class="error">
          {feed.error}
        </p>
      )}
      <div class={selected ? 'events-split' : undefined}>
        <EventTable rows={feed.rows} names={names} lookups={lookups} base={api.base} selected={selected?.id} onSelect={setSelected} empty={feed.loading ? 'Loading…' : 'No events match.'} />
        {selected && <EventDetails event={selected} base={api.base} names={names} onClose={() => setSelected(undefined)} />}
      </div>
      <div class="pager">
        <button type="button" onClick={feed.older} disabled={!feed.hasOlder || feed.loading}>
          Older events
        </button>
        <span>{feed.rows.length} shown (at most 500 are kept)</span>
      </div>
    </section>
  );
}
