import { OTHER, totalsOf, type CountsJson } from '../counts.js';
import { timeText } from '../format.js';
import type { DeviceJson } from '../model.js';
import type { LatestImage } from '../overview-data.js';
import { screenHref } from '../routes.js';
import { visible } from '../visible-text.js';

interface CountListProps {
  title: string;
  counts: CountsJson;
  nameOf: (group: string) => string;
  /** The Events screen filtered to a group over the range. */
  hrefOf: (group: string) => string;
}

/** A group's count over the range, largest first, each group a link to its events (the rest as text). */
export function CountList({ title, counts, nameOf, hrefOf }: CountListProps) {
  const totals = totalsOf(counts);
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {totals.length === 0 ? (
        <p class="hint">No events in the range.</p>
      ) : (
        <ol class="counts">
          {totals.map(([group, count]) => (
            <li key={group}>
              {group === OTHER ? <span>{nameOf(group)}</span> : <a href={hrefOf(group)}>{nameOf(group)}</a>}
              <span class="count">{count}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Devices with when each was last seen, each a link to its events. */
export function DeviceList({ title, devices }: { title: string; devices: DeviceJson[] }) {
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {devices.length === 0 ? (
        <p class="hint">No device seen yet.</p>
      ) : (
        <ol class="counts seen">
          {devices.map((device) => (
            <li key={device.device_name}>
              <a href={screenHref('events', { device_name: device.device_name })}>{visible(device.device_name)}</a>
              <span class="count">{timeText(device.last_seen_at)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The latest stored images as thumbnails, each a link opening its event. */
export function ImageGrid({ images }: { images: LatestImage[] }) {
  return (
    <section class="panel" aria-label="Latest images">
      <h2>Latest images</h2>
      {images.length === 0 ? (
        <p class="hint">No stored image among the latest events.</p>
      ) : (
        <ul class="image-grid">
          {images.map(({ path, event }, n) => (
            <li key={`${event.id}-${n}`}>
              <a href={screenHref('events', { event: event.id })}>
                <img class="thumb" src={path} alt={`${visible(event.event_type)}, ${timeText(event.created_at)}`} loading="lazy" />
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
