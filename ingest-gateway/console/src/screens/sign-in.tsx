import { useState } from 'preact/hooks';
import { ApiError, createApi, type Api } from '../api.js';

interface SignInProps {
  base: string;
  onSignedIn: (api: Api) => void;
  /** Why the console signed out by itself: the API refused the credential it held. */
  ended: string | undefined;
  /** Passed to the Api: the credential was refused later on. */
  onRefused: (message: string) => void;
}

/**
 * The admin credential (ADMIN_TOKEN), checked against the admin API before it is kept. It lives in
 * memory only (the Api object): never in the URL, a cookie or web storage; a reload forgets it.
 */
export function SignIn({ base, onSignedIn, ended, onRefused }: SignInProps) {
  const [credential, setCredential] = useState('');
  const [refusal, setRefusal] = useState<string | undefined>(ended && `Signed out: the admin token was refused (${ended}).`);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setRefusal(undefined);
    try {
      const api = createApi(base, credential, onRefused);
      // Checked without onRefused: a wrong credential here is shown below, not a session ending.
      await createApi(base, credential).get('/settings/dynamic-events');
      onSignedIn(api);
    } catch (err) {
      setRefusal(err instanceof ApiError ? err.message : 'sign-in failed');
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Dynamic events settings</h1>
      <p>Sign in with the instance's admin token (the <code>ADMIN_TOKEN</code> the gateway was started with). It stays in this tab only.</p>
      <form onSubmit={submit} aria-describedby={refusal ? 'sign-in-refusal' : undefined}>
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input id="admin-token" type="password" autocomplete="off" required value={credential} onInput={(e) => setCredential(e.currentTarget.value)} />
        </div>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {refusal && (
          <p role="alert" class="error" id="sign-in-refusal">
            {refusal}
          </p>
        )}
      </form>
    </main>
  );
}
