import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { Field, TextInput } from '../components/field.js';
import { utcInstant } from '../format.js';

/** "Recover failed since…": every failed delivery of the webhook since a UTC time is sent again. */
export function RecoverForm({ api, path, onRecovered }: { api: Api; path: string; onRecovered: () => void }) {
  const [since, setSince] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setDone(undefined);
    try {
      const { recovered } = await api.send<{ recovered: number }>('POST', `${path}/recover`, { since: utcInstant(since) });
      setError(undefined);
      setDone(`${recovered} failed ${recovered === 1 ? 'delivery' : 'deliveries'} sent again.`);
      onRecovered();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    setBusy(false);
  };
  return (
    <form class="recover" onSubmit={submit} aria-label="Recover failed deliveries">
      <Field
        id="recover-since"
        label="Recover failed since"
        hint="UTC. Every delivery that failed since then is sent again."
        error={error}
        control={(props) => <TextInput {...props} type="datetime-local" value={since} onValue={setSince} />}
      />
      <button type="submit" disabled={busy}>
        Recover failed deliveries
      </button>
      <span role="status">{done}</span>
    </form>
  );
}
