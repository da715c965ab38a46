import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api.js';
import type { TokenJson } from '../model.js';
import { bodyOf, EMPTY_FORM, formOf } from '../token-form-model.js';
import { RequireToken } from './require-token.js';
import { RevokeDialog } from './revoke-dialog.js';
import { TokenForm } from './token-form.js';
import { TokenSecret } from './token-secret.js';
import { TokenTable } from './token-table.js';

const TOKENS = '/settings/dynamic-events/tokens';

/** What the screen shows above the table: nothing, a form, or a new token's secret. */
type Panel = { kind: 'none' } | { kind: 'create' } | { kind: 'edit'; token: TokenJson } | { kind: 'secret'; name: string; secret: string };

/** Tokens: the list, create, edit, revoke, and the instance's require_token setting. */
export function TokensScreen({ api, onTokensChanged }: { api: Api; onTokensChanged: () => void }) {
  const [tokens, setTokens] = useState<TokenJson[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [revoking, setRevoking] = useState<{ token: TokenJson; error?: string } | undefined>();
  // Creating a token turns require_token on: the setting is read again after each change.
  const [version, setVersion] = useState(0);

  const load = useCallback(() => {
    api.get<{ tokens: TokenJson[] }>(TOKENS).then(
      (answer) => setTokens(answer.tokens),
      (err: unknown) => setError(err instanceof ApiError ? err.message : String(err)),
    );
  }, [api]);
  useEffect(load, [load]);
  const changed = () => {
    load();
    setVersion((v) => v + 1);
    onTokensChanged();
  };

  const revoke = async (token: TokenJson) => {
    try {
      await api.send('DELETE', `${TOKENS}/${encodeURIComponent(token.id)}`);
      setRevoking(undefined);
      changed();
    } catch (err) {
      setRevoking({ token, error: err instanceof Error ? err.message : String(err) });
    }
  };

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Tokens</h1>
      <RequireToken api={api} version={version} />
      {panel.kind === 'none' && (
        <button type="button" onClick={() => setPanel({ kind: 'create' })}>
          New token
        </button>
      )}
      {panel.kind === 'secret' && <TokenSecret name={panel.name} secret={panel.secret} onDone={() => setPanel({ kind: 'none' })} />}
      {panel.kind === 'create' && (
        <TokenForm
          title="New token"
          initial={EMPTY_FORM}
          submitLabel="Create token"
          onCancel={() => setPanel({ kind: 'none' })}
          onSubmit={async (values) => {
            const created = await api.send<TokenJson & { token: string }>('POST', TOKENS, bodyOf(values, false));
            setPanel({ kind: 'secret', name: created.name, secret: created.token });
            changed();
          }}
        />
      )}
      {panel.kind === 'edit' && (
        <TokenForm
          key={panel.token.id}
          title={`Edit token “${panel.token.name}”`}
          initial={formOf(panel.token)}
          submitLabel="Save"
          onCancel={() => setPanel({ kind: 'none' })}
          onSubmit={async (values) => {
            await api.send('PATCH', `${TOKENS}/${encodeURIComponent(panel.token.id)}`, bodyOf(values, true));
            setPanel({ kind: 'none' });
            changed();
          }}
        />
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <TokenTable tokens={tokens} onEdit={(token) => setPanel({ kind: 'edit', token })} onRevoke={(token) => setRevoking({ token })} />
      {revoking && <RevokeDialog token={revoking.token} error={revoking.error} onRevoke={() => void revoke(revoking.token)} onCancel={() => setRevoking(undefined)} />}
    </section>
  );
}
