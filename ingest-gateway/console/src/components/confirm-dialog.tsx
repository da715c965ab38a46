import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface ConfirmDialogProps {
  title: string;
  /** What confirming does, said under the title. */
  children: ComponentChildren;
  confirmLabel: string;
  /** The API's refusal of the last try, shown in the dialog. */
  error: string | undefined;
  /** A danger button (revoke, delete) or a plain one. */
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Asks before an action: a modal <dialog> (Escape cancels), "Cancel" focused first. */
export function ConfirmDialog({ title, children, confirmLabel, error, danger = true, onConfirm, onCancel }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{children}</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" class={danger ? 'danger' : undefined} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
