import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { FilterForm } from '../components/filter-form.js';
import { Pager } from '../components/pager.js';
import { creatorText, timeText } from '../format.js';
import { visible } from '../visible-text.js';
import { useKeysetPages } from '../keyset-pages.js';
import type { DeviceJson, EventTypeJson, ObjectJson } from '../model.js';

interface ScreenProps {
  api: Api;
  /** Token names by id, for the "Created by" column. */
  names: ReadonlyMap<string, string>;
}

type Pages = ReturnType<typeof useKeysetPages>;

/** The parts every list screen shares: its heading, what it lists, load errors and the pager. */
function ListScreen({ title, intro, pages, children }: { title: string; intro: string; pages: Pages; children: ComponentChildren }) {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">{title}</h1>
      <p class="intro">{intro}</p>
      {children}
      {pages.error && (
        <p role="alert" class="error">
          {pages.error}
        </p>
      )}
      <Pager number={pages.number} hasNext={pages.next !== null} loading={pages.loading} onNext={pages.nextPage} onFirst={pages.firstPage} />
    </section>
  );
}

/** Every device the instance discovered (devices have no domain: no filter). */
export function DevicesScreen({ api, names }: ScreenProps) {
  const pages = useKeysetPages<DeviceJson>(api, '/devices', 'devices', {});
  return (
    <ListScreen title="Devices" intro="Devices are created by the first event that names them, in key order." pages={pages}>
      <DataTable caption="Devices" columns={['Device', 'Kind', 'Created', 'Created by token']} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No devices.'}>
        {pages.items.map((device) => (
          <tr key={device.device_name}>
            <td class="wrap">{visible(device.device_name)}</td>
            <td>{device.kind}</td>
            <td>{timeText(device.created_at)}</td>
            <td>{creatorText(device.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}

/** Objects, by device and by domain. */
export function ObjectsScreen({ api, names }: ScreenProps) {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const pages = useKeysetPages<ObjectJson>(api, '/objects', 'objects', { device_name: filters.device_name, domain: filters.domain });
  return (
    <ListScreen title="Objects" intro="Objects (a camera channel, a sensor) are created by the first event naming their full id." pages={pages}>
      <FilterForm
        fields={[
          { name: 'device_name', label: 'Device' },
          { name: 'domain', label: 'Domain' },
        ]}
        initial={filters}
        onApply={setFilters}
      />
      <DataTable caption="Objects" columns={['Object id', 'Name', 'Type', 'Device', 'Created', 'Created by token']} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No objects.'}>
        {pages.items.map((object) => (
          <tr key={object.id}>
            <td class="wrap">{visible(object.id)}</td>
            <td class="wrap">{visible(object.object_name)}</td>
            <td>{visible(object.object_type)}</td>
            <td class="wrap">{visible(object.device_name)}</td>
            <td>{timeText(object.created_at)}</td>
            <td>{creatorText(object.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}

/** Event types, by domain. */
export function EventTypesScreen({ api, names }: ScreenProps) {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const pages = useKeysetPages<EventTypeJson>(api, '/event-types', 'event_types', { domain: filters.domain });
  return (
    <ListScreen title="Event types" intro="Event types are created within an object domain by the first event of that type." pages={pages}>
      <FilterForm fields={[{ name: 'domain', label: 'Domain' }]} initial={filters} onApply={setFilters} />
      <DataTable caption="Event types" columns={['Domain', 'Event type', 'Display name', 'Description', 'Created', 'Created by token']} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No event types.'}>
        {pages.items.map((type) => (
          <tr key={`${type.domain}/${type.event_type}`}>
            <td class="wrap">{visible(type.domain)}</td>
            <td class="wrap">{visible(type.event_type)}</td>
            <td class="wrap">{visible(type.display_name)}</td>
            <td class="wrap">{visible(type.display_description)}</td>
            <td>{timeText(type.created_at)}</td>
            <td>{creatorText(type.created_by_token_id, names)}</td>
          </tr>
        ))}
      </DataTable>
    </ListScreen>
  );
}
