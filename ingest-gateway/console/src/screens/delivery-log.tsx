import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { Pager } from '../components/pager.js';
import { timeText } from '../format.js';
import { useKeysetPages } from '../keyset-pages.js';
import type { DeliveryJson } from '../model.js';
import { answerText } from '../webhook-format.js';
import { DeliveryDetails } from './delivery-details.js';
import { RecoverForm } from './recover-form.js';
import { visible } from '../visible-text.js';

interface DeliveryLogProps {
  api: Api;
  /** The webhook's path, `…/webhooks/{id}`. */
  path: string;
  name: string;
  onClose: () => void;
}

const COLUMNS = ['Delivery', 'Event', 'Type', 'Status', 'Attempts', 'Last answer', 'Next attempt', 'Created', 'Actions'];

/** A webhook's delivery log, newest first: a status filter, pages, Retry, one delivery's attempts, and "Recover failed since…". */
export function DeliveryLog({ api, path, name, onClose }: DeliveryLogProps) {
  const [status, setStatus] = useState('');
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<string | undefined>();
  const [said, setSaid] = useState<{ text: string; failed: boolean } | undefined>();
  const pages = useKeysetPages<DeliveryJson>(api, `${path}/deliveries`, 'deliveries', { status }, version);
  const refresh = () => setVersion((v) => v + 1);
  const retry = async (delivery: DeliveryJson) => {
    try {
      await api.send('POST', `${path}/deliveries/${encodeURIComponent(delivery.id)}/retry`);
      setSaid({ text: `Delivery ${delivery.id} queued for a new attempt.`, failed: false });
      refresh();
    } catch (err) {
      setSaid({ text: err instanceof Error ? err.message : String(err), failed: true });
    }
  };
  return (
    <section class="details" aria-labelledby="delivery-log-title" id="delivery-log" tabIndex={-1}>
      <div class="details-head">
        <h2 id="delivery-log-title">Deliveries of {visible(name)}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      <div class="log-bar">
        <div class="field">
          <label for="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any status</option>
            <option value="pending">pending</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </div>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      {said && (
        <p role={said.failed ? 'alert' : 'status'} class={said.failed ? 'error' : undefined}>
          {said.text}
        </p>
      )}
      {pages.error && (
        <p role="alert" class="error">
          {pages.error}
        </p>
      )}
      <DataTable caption="Deliveries" columns={COLUMNS} rowCount={pages.items.length} empty={pages.loading ? 'Loading…' : 'No deliveries match.'}>
        {pages.items.map((delivery) => (
          <tr key={delivery.id} class={delivery.id === selected ? 'selected' : undefined}>
            <td class="wrap id">
              <code>{delivery.id}</code>
            </td>
            <td class="wrap id">{delivery.event_id ?? 'none'}</td>
            <td>{delivery.type}</td>
            <td class={`delivery-${delivery.status}`}>{delivery.status}</td>
            <td>{delivery.attempt_count}</td>
            <td class="wrap">{answerText(delivery.last_status_code, delivery.last_error)}</td>
            <td>{timeText(delivery.next_attempt_at, 'none')}</td>
            <td>{timeText(delivery.created_at)}</td>
            <td class="row-actions">
              <button type="button" class="secondary" aria-label={`Details ${delivery.id}`} onClick={() => (setSelected(delivery.id), refresh())}>
                Details
              </button>
              <button type="button" aria-label={`Retry ${delivery.id}`} onClick={() => void retry(delivery)}>
                Retry
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <Pager number={pages.number} hasNext={pages.next !== null} loading={pages.loading} onNext={pages.nextPage} onFirst={pages.firstPage} />
      {selected && <DeliveryDetails api={api} path={`${path}/deliveries/${encodeURIComponent(selected)}`} version={version} onClose={() => setSelected(undefined)} />}
      <RecoverForm api={api} path={path} onRecovered={refresh} />
    </section>
  );
}
