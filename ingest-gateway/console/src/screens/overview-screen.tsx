import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { BarChart } from '../components/bar-chart.js';
import { barsOf, OTHER, RANGES, seriesOf, type Range } from '../counts.js';
import { timeText } from '../format.js';
import { useOverview, type StackBy } from '../overview-data.js';
import { screenHref } from '../routes.js';
import { streamText } from '../stream-text.js';
import { visible } from '../visible-text.js';
import { CountList, DeviceList, ImageGrid } from './overview-parts.js';

const BUCKET_WORD = { minute: 'minute', hour: 'hour', day: 'day' } as const;
const nameOf = (group: string) => (group === OTHER ? 'other' : visible(group));

/** Overview: events over time, counts by event type and device, devices by last sighting, the latest images; live. */
export function OverviewScreen({ api }: { api: Api }) {
  const [range, setRange] = useState<Range>(RANGES[2]);
  const [stackBy, setStackBy] = useState<StackBy>('event_type');
  const [follow, setFollow] = useState(true);
  const { data, error, stream } = useOverview(api, range, stackBy, follow);
  const { since, until } = data.window;
  const seen = data.devices.filter((device) => device.last_seen_at !== null);
  const byLastSeen = [...seen].sort((a, b) => Date.parse(b.last_seen_at as string) - Date.parse(a.last_seen_at as string));
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Overview</h1>
      <div class="overview-bar">
        <div role="group" aria-label="Range" class="ranges">
          {RANGES.map((r) => (
            <button key={r.id} type="button" class={r.id === range.id ? undefined : 'secondary'} aria-pressed={r.id === range.id} onClick={() => setRange(r)}>
              {r.label}
            </button>
          ))}
        </div>
        <div class="field inline">
          <label for="stack-by">Stacked by</label>
          <select id="stack-by" value={stackBy} onChange={(e) => setStackBy(e.currentTarget.value as StackBy)}>
            <option value="event_type">Event type</option>
            <option value="domain">Domain</option>
          </select>
        </div>
        <label class="check">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
          Follow live
        </label>
        <p role="status" class={`stream-${stream.kind}`}>
          {streamText(stream)}
        </p>
      </div>
      <p class="hint">
        From {timeText(since)} until {timeText(until)}, per {BUCKET_WORD[data.window.bucket]}.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <BarChart
        title={`Events per ${BUCKET_WORD[data.window.bucket]}, by ${stackBy === 'domain' ? 'domain' : 'event type'}`}
        bars={barsOf(data.chart, data.window)}
        series={seriesOf(data.chart)}
        bucket={data.window.bucket}
        nameOf={nameOf}
        hrefOf={(bar) => screenHref('events', { since: bar.start, until: bar.end })}
      />
      <div class="overview-grid">
        <CountList title="By event type" counts={data.byType} nameOf={nameOf} hrefOf={(group) => screenHref('events', { event_type: group, since, until })} />
        <CountList title="By device" counts={data.byDevice} nameOf={nameOf} hrefOf={(group) => screenHref('events', { device_name: group, since, until })} />
        <DeviceList title="Seen most recently" devices={byLastSeen.slice(0, 5)} />
        <DeviceList title="Silent longest" devices={[...byLastSeen].reverse().slice(0, 5)} />
      </div>
      <ImageGrid images={data.images} />
    </section>
  );
}
