import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';

/** The instance's require_token setting (GET|PATCH {base}/settings/dynamic-events) and what it means. */
export function RequireToken({ api, version }: { api: Api; version: number }) {
  const [value, setValue] = useState<boolean | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.get<{ require_token: boolean }>('/settings/dynamic-events').then(
      (answer) => setValue(answer.require_token),
      (err: unknown) => setError(err instanceof ApiError ? err.message : String(err)),
    );
  }, [api, version]);
  const change = async (next: boolean) => {
    setError(undefined);
    try {
      setValue((await api.send<{ require_token: boolean }>('PATCH', '/settings/dynamic-events', { require_token: next })).require_token);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <div class="setting">
      <label class="check">
        <input type="checkbox" checked={value === true} disabled={value === undefined} aria-describedby="require-token-text" onChange={(e) => void change(e.currentTarget.checked)} />
        Require a token
      </label>
      <p id="require-token-text" class="hint">
        On: every request to the API (posting events, reads, lists and the stream) needs a valid token, and one without is refused with 401. Off: the
        instance is open to anyone who can reach it, and tokens sent are ignored. Creating a token turns this on; revoking the last one leaves it on (the
        instance is then closed) until it is turned off here.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}
