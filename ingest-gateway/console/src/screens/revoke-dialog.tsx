import { ConfirmDialog } from '../components/confirm-dialog.js';
import type { TokenJson } from '../model.js';

interface RevokeDialogProps {
  token: TokenJson;
  error: string | undefined;
  onRevoke: () => void;
  onCancel: () => void;
}

/** Asks before revoking a token, with "Revoke" and "Cancel". */
export function RevokeDialog({ token, error, onRevoke, onCancel }: RevokeDialogProps) {
  return (
    <ConfirmDialog title={`Revoke token “${token.name}”?`} confirmLabel="Revoke" error={error} onConfirm={onRevoke} onCancel={onCancel}>
      Every request with it is refused from now on, and its open streams end. This cannot be undone; the token stays listed as revoked.
    </ConfirmDialog>
  );
}
