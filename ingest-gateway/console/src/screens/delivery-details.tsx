import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { timeText } from '../format.js';
import type { AttemptJson, DeliveryJson } from '../model.js';
import { answerText } from '../webhook-format.js';
import { visible } from '../visible-text.js';

interface DeliveryDetailsProps {
  api: Api;
  /** The delivery's path, `…/webhooks/{id}/deliveries/{delivery_id}`. */
  path: string;
  /** Read again whenever it changes (the log's Refresh, a Retry). */
  version: number;
  onClose: () => void;
}

const COLUMNS = ['At', 'Status code', 'Duration', 'Error', 'Response body'];

/**
 * One delivery and its attempts, oldest first. The receiver's error and body are its own text:
 * rendered as text only (Preact escapes it), never as markup.
 */
export function DeliveryDetails({ api, path, version, onClose }: DeliveryDetailsProps) {
  const [delivery, setDelivery] = useState<(DeliveryJson & { attempts: AttemptJson[] }) | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    api.get<DeliveryJson & { attempts: AttemptJson[] }>(path).then(
      (answer) => live && (setDelivery(answer), setError(undefined)),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [api, path, version]);
  return (
    <section class="details" aria-label="Delivery details">
      <div class="details-head">
        <h3>Delivery {delivery?.id ?? ''}</h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close details
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {delivery && (
        <p>
          {delivery.type} of event {delivery.event_id ?? 'none'}: {delivery.status} after {delivery.attempt_count} {delivery.attempt_count === 1 ? 'attempt' : 'attempts'}
          {delivery.succeeded_at && `, at ${timeText(delivery.succeeded_at)}`}. Times are UTC.
        </p>
      )}
      <DataTable caption="Attempts" columns={COLUMNS} rowCount={delivery?.attempts.length ?? 0} empty={delivery ? 'No attempt yet.' : 'Loading…'}>
        {delivery?.attempts.map((attempt, n) => (
          <tr key={n}>
            <td>{timeText(attempt.at)}</td>
            <td>{answerText(attempt.status_code, null)}</td>
            <td>{attempt.duration_ms} ms</td>
            <td class="wrap">{attempt.error || 'none'}</td>
            <td class="wrap">
              <pre class="body-text">{attempt.response_body === '' ? 'empty' : visible(attempt.response_body)}</pre>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
