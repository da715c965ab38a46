import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import type { AuthSettingsJson, InstanceAccess } from '../model.js';

/** What each `access` the API answers means for senders: the status line's words. */
const ACCESS_TEXT: Record<InstanceAccess, string> = {
  open: 'Open: anyone who can reach the instance may send events and read them without a token; tokens sent are ignored.',
  token_required: 'Tokens required: senders need a live token; a request without one is refused with 401.',
  closed:
    'Closed: a token is required and none is live, so every sender’s request (posting events, reads, lists and the stream) is refused with 401. Create a token for them, or turn “Require a token” off to open the instance to anyone.',
};

/**
 * The instance's require_token setting (GET|PATCH {base}/settings/dynamic-events) and the access it
 * leaves, as the API answers it: a closed instance is shown as a warning banner.
 */
export function RequireToken({ api, version }: { api: Api; version: number }) {
  const [settings, setSettings] = useState<AuthSettingsJson | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api.get<AuthSettingsJson>('/settings/dynamic-events').then(setSettings, (err: unknown) => setError(err instanceof ApiError ? err.message : String(err)));
  }, [api, version]);
  const change = async (next: boolean) => {
    setError(undefined);
    try {
      setSettings(await api.send<AuthSettingsJson>('PATCH', '/settings/dynamic-events', { require_token: next }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const value = settings?.require_token;
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
      <p role="status" class={settings ? `access access-${settings.access}` : 'access'}>
        {settings && ACCESS_TEXT[settings.access]}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}
