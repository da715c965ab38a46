import { ShownOnce } from '../components/shown-once.js';

/** A new token's secret, shown once with "Copy secret". */
export function TokenSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  return (
    <ShownOnce label="New token secret" title={`Token “${name}” created`} secret={secret} onDone={onDone}>
      Copy its secret now: it is shown this once and never again. Integrations send it in the header “Authorization: Bearer” followed by the secret.
    </ShownOnce>
  );
}
