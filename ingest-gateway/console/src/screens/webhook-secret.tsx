import { ShownOnce } from '../components/shown-once.js';

/** A webhook's new secret (created or rotated), shown once with "Copy secret". */
export function WebhookSecret({ title, rotated, secret, onDone }: { title: string; rotated: boolean; secret: string; onDone: () => void }) {
  return (
    <ShownOnce label="New webhook secret" title={title} secret={secret} onDone={onDone}>
      Copy the secret now: it is shown this once and never again. The receiver checks each request's “webhook-signature” header with it (Standard
      Webhooks).
      {rotated && ' The previous secret keeps signing beside it for 24 hours, so the receiver can switch without missing a request.'}
    </ShownOnce>
  );
}
