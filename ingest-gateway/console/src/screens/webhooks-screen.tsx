import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Pager } from '../components/pager.js';
import { useKeysetPages } from '../keyset-pages.js';
import type { WebhookJson } from '../model.js';
import { webhookName } from '../webhook-format.js';
import { EMPTY_WEBHOOK_FORM, webhookBodyOf, webhookFormOf } from '../webhook-form-model.js';
import { DeliveryLog } from './delivery-log.js';
import { WebhookForm } from './webhook-form.js';
import { WebhookSecret } from './webhook-secret.js';
import { WebhookTable, type WebhookAction } from './webhook-table.js';

const WEBHOOKS = '/settings/dynamic-events/webhooks';

/** What the screen shows above the table: nothing, a form, or a secret shown once. */
type Panel = { kind: 'none' } | { kind: 'create' } | { kind: 'edit'; webhook: WebhookJson } | { kind: 'secret'; title: string; rotated: boolean; secret: string };
type Confirm = { kind: 'rotate' | 'delete'; webhook: WebhookJson; error?: string };

const pathOf = (webhook: WebhookJson) => `${WEBHOOKS}/${encodeURIComponent(webhook.id)}`;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Webhooks: the list, create and edit, enable and disable, the secret rotated, delete, and a webhook's delivery log. */
export function WebhooksScreen({ api }: { api: Api }) {
  const [version, setVersion] = useState(0);
  const pages = useKeysetPages<WebhookJson>(api, WEBHOOKS, 'webhooks', {}, version);
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [confirm, setConfirm] = useState<Confirm | undefined>();
  const [logOf, setLogOf] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const changed = () => setVersion((v) => v + 1);
  const logged = pages.items.find((webhook) => webhook.id === logOf);
  useEffect(() => {
    if (logOf) document.getElementById('delivery-log')?.focus();
  }, [logOf]);

  const act = async (action: WebhookAction, webhook: WebhookJson) => {
    setError(undefined);
    if (action === 'edit') return setPanel({ kind: 'edit', webhook });
    if (action === 'deliveries') return setLogOf(webhook.id);
    if (action === 'rotate' || action === 'delete') return setConfirm({ kind: action, webhook });
    try {
      await api.send('PATCH', pathOf(webhook), { enabled: !webhook.enabled });
      changed();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const confirmed = async ({ kind, webhook }: Confirm) => {
    try {
      if (kind === 'delete') {
        await api.send('DELETE', pathOf(webhook));
        if (logOf === webhook.id) setLogOf(undefined);
      } else {
        const { secret } = await api.send<{ secret: string }>('POST', `${pathOf(webhook)}/secret`);
        setPanel({ kind: 'secret', title: `New secret of “${webhookName(webhook)}”`, rotated: true, secret });
      }
      setConfirm(undefined);
      changed();
    } catch (err) {
      setConfirm({ kind, webhook, error: messageOf(err) });
    }
  };

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Webhooks</h1>
      <p class="intro">Each webhook receives every matching change as a signed POST, at least once. Times are UTC.</p>
      <PanelView api={api} panel={panel} setPanel={setPanel} changed={changed} />
      {(error ?? pages.error) && (
        <p role="alert" class="error">
          {error ?? pages.error}
        </p>
      )}
      <WebhookTable webhooks={pages.items} loading={pages.loading} onAction={(action, webhook) => void act(action, webhook)} />
      <Pager number={pages.number} hasNext={pages.next !== null} loading={pages.loading} onNext={pages.nextPage} onFirst={pages.firstPage} />
      {logged && <DeliveryLog key={logged.id} api={api} path={pathOf(logged)} name={webhookName(logged)} onClose={() => setLogOf(undefined)} />}
      {confirm && <WebhookConfirm confirm={confirm} onConfirm={() => void confirmed(confirm)} onCancel={() => setConfirm(undefined)} />}
    </section>
  );
}

/** The panel above the table: "New webhook", the create or edit form, or a secret shown once. */
function PanelView({ api, panel, setPanel, changed }: { api: Api; panel: Panel; setPanel: (panel: Panel) => void; changed: () => void }) {
  return (
    <>
      {panel.kind === 'none' && (
        <button type="button" onClick={() => setPanel({ kind: 'create' })}>
          New webhook
        </button>
      )}
      {panel.kind === 'secret' && <WebhookSecret title={panel.title} rotated={panel.rotated} secret={panel.secret} onDone={() => setPanel({ kind: 'none' })} />}
      {panel.kind === 'create' && (
        <WebhookForm
          title="New webhook"
          initial={EMPTY_WEBHOOK_FORM}
          submitLabel="Create webhook"
          editing={false}
          onCancel={() => setPanel({ kind: 'none' })}
          onSubmit={async (values) => {
            const created = await api.send<WebhookJson & { secret: string }>('POST', WEBHOOKS, webhookBodyOf(values, false));
            setPanel({ kind: 'secret', title: `Webhook “${webhookName(created)}” created`, rotated: false, secret: created.secret });
            changed();
          }}
        />
      )}
      {panel.kind === 'edit' && (
        <WebhookForm
          key={panel.webhook.id}
          title={`Edit webhook “${webhookName(panel.webhook)}”`}
          initial={webhookFormOf(panel.webhook)}
          submitLabel="Save"
          editing
          onCancel={() => setPanel({ kind: 'none' })}
          onSubmit={async (values) => {
            await api.send('PATCH', pathOf(panel.webhook), webhookBodyOf(values, true));
            setPanel({ kind: 'none' });
            changed();
          }}
        />
      )}
    </>
  );
}

/** Asks before rotating a secret or deleting a webhook. */
function WebhookConfirm({ confirm, onConfirm, onCancel }: { confirm: Confirm; onConfirm: () => void; onCancel: () => void }) {
  const name = webhookName(confirm.webhook);
  if (confirm.kind === 'rotate') {
    return (
      <ConfirmDialog title={`Rotate the secret of “${name}”?`} confirmLabel="Rotate secret" danger={false} error={confirm.error} onConfirm={onConfirm} onCancel={onCancel}>
        A new secret is made and shown once. The current one keeps signing beside it for 24 hours, then stops.
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog title={`Delete webhook “${name}”?`} confirmLabel="Delete" error={confirm.error} onConfirm={onConfirm} onCancel={onCancel}>
      Nothing more is sent to {confirm.webhook.url}, and its delivery log is gone with it. This cannot be undone.
    </ConfirmDialog>
  );
}
