import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { COUNT_HEADING, EventCount } from '../components/event-count.js';
import { FilterForm } from '../components/filter-form.js';
import { creatorText, timeText } from '../format.js';
import { useKeysetPages } from '../keyset-pages.js';
import type { DeviceJson, EventTypeJson, ObjectJson } from '../model.js';
import { screenHref } from '../routes.js';
import { visible } from '../visible-text.js';
import { ListScreen, SEARCH_FIELD } from './list-screen.js';

interface ScreenProps {
  api: Api;
  /** Token names by id, for the "Created by" column. */
  names: ReadonlyMap<string, string>;
  /** Filters from the link that opened the screen (the list's query names). */
  params: Record<string, string>;
}

/** Every device the instance discovered, searchable by name; each links to its events and its objects. */
export function DevicesScreen({ api, names, params }: ScreenProps) {
  const [filters, setFilters] = useState<Record<string, string>>({ q: params.q ?? '' });
  const pages = useKeysetPages<DeviceJson>(api, '/devices', 'devices', { q: filters.q });
  const columns = ['Device', 'Kind', 'Last seen (UTC)', COUNT_HEADING, 'Objects', 'Created', 'Created by token'];
  return (
    <ListScreen title="Devices" intro="Devices are created by the first event that names them, in key order." pages={pages}>
      <FilterForm fields={[SEARCH_FIELD]} initial={filters} onApply={setFilters} />
      <DataTable caption="Devices" columns={columns} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No devices.'}>
        {pages.items.map((device) => (
          <tr key={device.device_name}>
            <td class="wrap">
              <a href={screenHref('events', { device_name: device.device_name })}>{visible(device.device_name)}</a>
            </td>
            <td>{device.kind}</td>
            <td>{timeText(device.last_seen_at ?? null)}</td>
            <td>
              <EventCount api={api} filters={{ device_name: device.device_name }} label={device.device_name} />
            </td>
            <td>
              <a href={screenHref('objects', { device_name: device.device_name })} aria-label={`Objects of ${visible(device.device_name)}`}>
                Objects
              </a>
            </td>
            <td>{timeText(device.created_at)}</td>
            <td>{creatorText(device.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}

/** Objects, by device and by domain, searchable; each links to its events and its device (the counts are not kept per object). */
export function ObjectsScreen({ api, names, params }: ScreenProps) {
  const [filters, setFilters] = useState<Record<string, string>>({ q: params.q ?? '', device_name: params.device_name ?? '', domain: params.domain ?? '' });
  const pages = useKeysetPages<ObjectJson>(api, '/objects', 'objects', { q: filters.q, device_name: filters.device_name, domain: filters.domain });
  const columns = ['Object id', 'Name', 'Type', 'Device', 'Last seen (UTC)', 'Created', 'Created by token'];
  const fields = [SEARCH_FIELD, { name: 'device_name', label: 'Device' }, { name: 'domain', label: 'Domain' }];
  return (
    <ListScreen title="Objects" intro="Objects (a camera channel, a sensor) are created by the first event naming their full id." pages={pages}>
      <FilterForm fields={fields} initial={filters} onApply={setFilters} />
      <DataTable caption="Objects" columns={columns} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No objects.'}>
        {pages.items.map((object) => (
          <tr key={object.id}>
            <td class="wrap">
              <a href={screenHref('events', { object: object.id })}>{visible(object.id)}</a>
            </td>
            <td class="wrap">{visible(object.object_name)}</td>
            <td>{visible(object.object_type)}</td>
            <td class="wrap">
              <a href={screenHref('devices', { q: object.device_name })}>{visible(object.device_name)}</a>
            </td>
            <td>{timeText(object.last_seen_at ?? null)}</td>
            <td>{timeText(object.created_at)}</td>
            <td>{creatorText(object.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}

/** Event types, by domain, searchable; each links to its events and its domain's objects. */
export function EventTypesScreen({ api, names, params }: ScreenProps) {
  const [filters, setFilters] = useState<Record<string, string>>({ q: params.q ?? '', domain: params.domain ?? '' });
  const pages = useKeysetPages<EventTypeJson>(api, '/event-types', 'event_types', { q: filters.q, domain: filters.domain });
  const columns = ['Domain', 'Event type', 'Display name', 'Description', COUNT_HEADING, 'Created', 'Created by token'];
  return (
    <ListScreen title="Event types" intro="Event types are created within an object domain by the first event of that type." pages={pages}>
      <FilterForm fields={[SEARCH_FIELD, { name: 'domain', label: 'Domain' }]} initial={filters} onApply={setFilters} />
      <DataTable caption="Event types" columns={columns} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No event types.'}>
        {pages.items.map((type) => (
          <tr key={`${type.domain}/${type.event_type}`}>
            <td class="wrap">
              <a href={screenHref('objects', { domain: type.domain })}>{visible(type.domain)}</a>
            </td>
            <td class="wrap">
              <a href={screenHref('events', { domain: type.domain, event_type: type.event_type })}>{visible(type.event_type)}</a>
            </td>
            <td class="wrap">{visible(type.display_name)}</td>
            <td class="wrap">{visible(type.display_description)}</td>
            <td>
              <EventCount api={api} filters={{ domain: type.domain, event_type: type.event_type }} label={type.event_type} />
            </td>
            <td>{timeText(type.created_at)}</td>
            <td>{creatorText(type.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}
