import { DataTable } from '../components/data-table.js';
import { policyText, statusText, timeText } from '../format.js';
import type { TokenJson } from '../model.js';

const COLUMNS = ['Name', 'Prefix', 'Policy', 'Created', 'Last used', 'Expires', 'Status', 'Actions'];

interface TokenTableProps {
  tokens: TokenJson[] | undefined;
  onEdit: (t: TokenJson) => void;
  onRevoke: (t: TokenJson) => void;
}

/**
 * The tokens, one row each with "Edit" and "Revoke" while it is live. The table fits its width (a
 * name or pattern breaks anywhere rather than widen it); on a narrow screen each row is a card of
 * labelled values (`data-label`: the column's name, shown by the stylesheet).
 */
export function TokenTable({ tokens, onEdit, onRevoke }: TokenTableProps) {
  const [name, prefix, policy, created, used, expires, status, actions] = COLUMNS;
  return (
    <DataTable caption="Tokens" columns={COLUMNS} rowCount={tokens?.length ?? 0} empty={tokens ? 'No tokens yet.' : 'Loading…'} layout="cards">
      {tokens?.map((token) => {
        const changeable = token.revoked_at === null && !token.read_only;
        return (
          <tr key={token.id}>
            <td class="wrap" data-label={name}>
              {token.name}
            </td>
            <td data-label={prefix}>
              <code>{token.prefix}</code>
            </td>
            <td class="wrap wide" data-label={policy}>
              {policyText(token.policy)}
            </td>
            <td class="time" data-label={created}>
              {timeText(token.created_at)}
            </td>
            <td class="time" data-label={used}>
              {timeText(token.last_used_at)}
            </td>
            <td class="time" data-label={expires}>
              {timeText(token.expires_at)}
            </td>
            <td class="time" data-label={status}>
              {statusText(token)}
            </td>
            <td data-label={actions}>
              {changeable && (
                <div class="row-actions">
                  <button type="button" class="secondary" aria-label={`Edit ${token.name}`} onClick={() => onEdit(token)}>
                    Edit
                  </button>
                  <button type="button" class="danger" aria-label={`Revoke ${token.name}`} onClick={() => onRevoke(token)}>
                    Revoke
                  </button>
                </div>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
