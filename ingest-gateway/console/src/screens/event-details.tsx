import { UrlText } from '../components/shown-url.js';
import { creatorText, objectOf, occurrenceText, timeText } from '../format.js';
import { shownUrl } from '../media-links.js';
import type { EventJson } from '../model.js';
import { visible } from '../visible-text.js';

interface EventDetailsProps {
  event: EventJson;
  base: string;
  names: ReadonlyMap<string, string>;
  onClose: () => void;
}

/**
 * One event: its fields and properties as text (control and format characters as escapes), its video clips as links, its images: those this
 * gateway stored as thumbnails, any other http(s) URL as a link (never loaded), the rest as text.
 */
export function EventDetails({ event, base, names, onClose }: EventDetailsProps) {
  const properties = Object.entries(event.event_additional_properties);
  let stored = 0;
  return (
    <section class="details" aria-label="Event details" tabIndex={-1} id="event-details">
      <div class="details-head">
        <h2>Event details</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close details
        </button>
      </div>
      <dl class="facts">
        <dt>Id</dt>
        <dd class="wrap">{event.id}</dd>
        <dt>Created</dt>
        <dd>{timeText(event.created_at)}</dd>
        <dt>Occurred</dt>
        <dd>{occurrenceText(event)}</dd>
        <dt>Event type</dt>
        <dd class="wrap">{visible(event.event_type)}</dd>
        <dt>Domain</dt>
        <dd class="wrap">{visible(event.domain)}</dd>
        <dt>Object</dt>
        <dd class="wrap">{visible(event.rels.map(objectOf).join(', '))}</dd>
        <dt>Token</dt>
        <dd class="wrap">{creatorText(event.token_id, names)}</dd>
      </dl>
      <h3>Properties</h3>
      {properties.length === 0 ? (
        <p>None.</p>
      ) : (
        <dl class="properties">
          {properties.map(([key, value]) => (
            <div key={key}>
              <dt class="wrap">{visible(key)}</dt>
              <dd class="wrap">{visible(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      <h3>Video clips</h3>
      {event.video_clips.length === 0 ? <p>None.</p> : <ul class="urls">{event.video_clips.map((url, n) => <li key={n}>{<UrlText url={url} base={base} />}</li>)}</ul>}
      <h3>Images</h3>
      {event.images.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="images">
          {event.images.map((url, n) => {
            const shown = shownUrl(url, base);
            if (shown.kind !== 'stored') return <li key={n}>{<UrlText url={url} base={base} />}</li>;
            stored += 1;
            return (
              <li key={n}>
                <img class="thumb" src={shown.path} alt={`Stored image ${stored}`} loading="lazy" />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
