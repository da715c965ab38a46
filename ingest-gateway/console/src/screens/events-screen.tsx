import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { FilterForm } from '../components/filter-form.js';
import { useEventFeed, type EventFilters, type FeedState } from '../event-feed.js';
import { utcInstant } from '../format.js';
import type { EventJson, TokenJson } from '../model.js';
import { EventDetails } from './event-details.js';
import { EventTable } from './event-table.js';

interface EventsScreenProps {
  api: Api;
  names: ReadonlyMap<string, string>;
  tokens: TokenJson[];
}

const FIELDS = [
  { name: 'device_name', label: 'Device' },
  { name: 'object', label: 'Object' },
  { name: 'domain', label: 'Domain' },
  { name: 'event_type', label: 'Event type' },
  { name: 'since', label: 'Since', type: 'datetime-local', hint: 'UTC' },
  { name: 'until', label: 'Until', type: 'datetime-local', hint: 'UTC, exclusive' },
] as const;

/** The status line's words for the stream's state. */
function streamText(state: FeedState): string {
  switch (state.kind) {
    case 'connecting':
      return 'Connecting to the live stream…';
    case 'live':
      return 'Live: new events appear at the top.';
    case 'reconnecting':
      return `Reconnecting in ${state.inSeconds} s (the stream resumes where it stopped)…`;
    case 'stopped':
      return `Live updates stopped: ${state.reason}`;
    case 'off':
      return state.reason;
  }
}

/** The form's values (datetime-local in UTC) as the API's filters. */
function filtersOf(values: Record<string, string>): EventFilters {
  const filters: EventFilters = {};
  for (const [name, value] of Object.entries(values)) {
    if (value.trim() === '') continue;
    filters[name as keyof EventFilters] = name === 'since' || name === 'until' ? utcInstant(value) : value.trim();
  }
  return filters;
}

/** Events: filters, live following, history paging back, and one event's details. */
export function EventsScreen({ api, names, tokens }: EventsScreenProps) {
  const [filters, setFilters] = useState<EventFilters>({});
  const [follow, setFollow] = useState(true);
  const [selected, setSelected] = useState<EventJson | undefined>();
  const feed = useEventFeed(api, filters, follow);
  useEffect(() => {
    if (selected) document.getElementById('event-details')?.focus();
  }, [selected?.id]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Events</h1>
      <FilterForm
        fields={FIELDS}
        initial={{}}
        onApply={(values) => setFilters(filtersOf(values))}
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
      <p class="hint">Since and Until are UTC (Until exclusive); Object is the full id, domain.object_id. Live following has no Until.</p>
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
        <EventTable rows={feed.rows} names={names} selected={selected?.id} onSelect={setSelected} empty={feed.loading ? 'Loading…' : 'No events match.'} />
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
