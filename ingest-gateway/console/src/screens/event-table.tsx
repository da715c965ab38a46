import { DataTable } from '../components/data-table.js';
import { creatorText, objectOf, occurrenceText, timeText } from '../format.js';
import type { EventJson } from '../model.js';
import { visible } from '../visible-text.js';

interface EventTableProps {
  rows: EventJson[];
  names: ReadonlyMap<string, string>;
  selected: string | undefined;
  onSelect: (event: EventJson) => void;
  empty: string;
}

const COLUMNS = ['Time', 'Occurred', 'Event type', 'Domain', 'Object', 'Token', 'Images', 'Details'];

/** The events, newest first; a row (or its "Details" button) opens the event's details. */
export function EventTable({ rows, names, selected, onSelect, empty }: EventTableProps) {
  return (
    <DataTable caption="Events" columns={COLUMNS} rowCount={rows.length} empty={empty}>
      {rows.map((event) => (
        <tr key={event.id} class={event.id === selected ? 'selected clickable' : 'clickable'} onClick={() => onSelect(event)}>
          <td>{timeText(event.created_at)}</td>
          <td class="wrap">{occurrenceText(event)}</td>
          <td class="wrap">{visible(event.event_type)}</td>
          <td class="wrap">{visible(event.domain)}</td>
          <td class="wrap">{visible(event.rels.map(objectOf).join(', '))}</td>
          <td class="wrap">{creatorText(event.token_id, names)}</td>
          <td>{event.images.length}</td>
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
