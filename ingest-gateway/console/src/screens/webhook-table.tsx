import { DataTable } from '../components/data-table.js';
import { timeText } from '../format.js';
import type { WebhookJson } from '../model.js';
import { filterText, stateText, webhookName } from '../webhook-format.js';
import { visible } from '../visible-text.js';

/** What a row's buttons ask the screen to do. */
export type WebhookAction = 'edit' | 'toggle' | 'rotate' | 'deliveries' | 'delete';

interface WebhookTableProps {
  webhooks: WebhookJson[];
  loading: boolean;
  onAction: (action: WebhookAction, webhook: WebhookJson) => void;
}

const COLUMNS = ['URL', 'Description', 'State', 'Filter', 'Created', 'Actions'];

/** The webhooks with their state (and why one is disabled), filter in words and each one's actions. */
export function WebhookTable({ webhooks, loading, onAction }: WebhookTableProps) {
  return (
    <DataTable caption="Webhooks" columns={COLUMNS} rowCount={webhooks.length} empty={loading ? 'Loading…' : 'No webhooks yet.'}>
      {webhooks.map((webhook) => {
        const name = webhookName(webhook);
        const button = (action: WebhookAction, text: string, label: string, style = 'secondary') => (
          <button type="button" class={style} aria-label={label} onClick={() => onAction(action, webhook)}>
            {text}
          </button>
        );
        return (
          <tr key={webhook.id}>
            <td class="wrap id">{visible(webhook.url)}</td>
            <td class="wrap">{visible(webhook.description)}</td>
            <td class={webhook.enabled ? undefined : 'wrap state-off'}>{stateText(webhook)}</td>
            <td class="wrap">{filterText(webhook.filter)}</td>
            <td>{timeText(webhook.created_at)}</td>
            <td class="row-actions many">
              {button('deliveries', 'Deliveries', `Deliveries of ${name}`)}
              {button('edit', 'Edit', `Edit ${name}`)}
              {webhook.enabled ? button('toggle', 'Disable', `Disable ${name}`) : button('toggle', 'Enable', `Enable ${name}`)}
              {button('rotate', 'Rotate secret', `Rotate secret of ${name}`)}
              {button('delete', 'Delete', `Delete ${name}`, 'danger')}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
