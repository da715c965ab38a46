import { DataTable } from '../components/data-table.js';
import type { EntityNames } from '../entity-names.js';
import { creatorText, objectOf, occurrenceText, timeText } from '../format.js';
import { shownUrl } from '../media-links.js';
import type { EventJson } from '../model.js';
import { visible } from '../visible-text.js';

interface EventTableProps {
  rows: EventJson[];
  names: ReadonlyMap<string, string>;
  lookups: EntityNames;
  /** The API base: which image URLs are this gateway's stored images. */
  base: string;
  selected: string | undefined;
  onSelect: (event: EventJson) => void;
  empty: string;
}

const COLUMNS = ['Time (UTC)', 'Occurred', 'Device', 'Event type', 'Domain', 'Object', 'Token', 'Image', 'Details'];

/** The first image of an event this gateway stored, as a small thumbnail; else how many images it names. */
function Thumbnail({ event, base }: { event: EventJson; base: string }) {
  for (const url of event.images) {
    const shown = shownUrl(url, base);
    if (shown.kind === 'stored') return <img class="row-thumb" src={shown.path} alt={`Image of event ${event.id}`} loading="lazy" />;
  }
  return <>{event.images.length === 0 ? '' : `${event.images.length} linked`}</>;
}

/** The events, newest first; a row (or its "Details" button) opens the event's details. */
export function EventTable({ rows, names, lookups, base, selected, onSelect, empty }: EventTableProps) {
  return (
    <DataTable caption="Events" columns={COLUMNS} rowCount={rows.length} empty={empty}>
      {rows.map((event) => (
        <tr key={event.id} class={event.id === selected ? 'selected clickable' : 'clickable'} onClick={() => onSelect(event)}>
          <td>{timeText(event.created_at)}</td>
          <td class="wrap">{occurrenceText(event)}</td>
          <td class="wrap">{visible(lookups.deviceOf(event))}</td>
          <td class="wrap" title={visible(event.event_type)}>
            {visible(lookups.displayNameOf(event))}
          </td>
          <td class="wrap">{visible(event.domain)}</td>
          <td class="wrap">{visible(event.rels.map(objectOf).join(', '))}</td>
          <td class="wrap">{creatorText(event.token_id, names)}</td>
          <td>
            <Thumbnail event={event} base={base} />
          </td>
          <td>
            <button
              type="button"
              class="secondary"
              aria-label={`Details ${event.id}`}
              aria-expanded={event.id === selected}
              onClick={(e) => {
                e.stopPropagation();
                onSelect(event);
              }}
            >
              Details
            </button>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
