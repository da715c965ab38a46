import { useEffect, useRef } from 'preact/hooks';
import type { TokenJson } from '../model.js';

interface RevokeDialogProps {
  token: TokenJson;
  error: string | undefined;
  onRevoke: () => void;
  onCancel: () => void;
}

/** Asks before revoking: a modal <dialog> (Escape cancels) with "Revoke" and "Cancel". */
export function RevokeDialog({ token, error, onRevoke, onCancel }: RevokeDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="revoke-title" aria-describedby="revoke-text" onCancel={onCancel}>
      <h2 id="revoke-title">Revoke token “{token.name}”?</h2>
      <p id="revoke-text">Every request with it is refused from now on, and its open streams end. This cannot be undone; the token stays listed as revoked.</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" class="danger" onClick={onRevoke}>
          Revoke
        </button>
        <button type="button" class="secondary" onClick={onCancel} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
