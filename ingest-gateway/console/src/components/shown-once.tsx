import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

interface ShownOnceProps {
  /** The region's accessible name ("New token secret"). */
  label: string;
  title: string;
  /** What the secret is for, said above it. */
  children: ComponentChildren;
  secret: string;
  onDone: () => void;
}

/**
 * A new secret, shown once: it lives in its screen's state only, so leaving the screen forgets it.
 * "Copy secret" puts it on the clipboard, or selects it where the clipboard is refused.
 */
export function ShownOnce({ label, title, children, secret, onDone }: ShownOnceProps) {
  const [copied, setCopied] = useState<string | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // Without clipboard access (an insecure origin, a refused permission), select the text instead.
      const range = document.createRange();
      const code = document.getElementById('secret-value');
      if (code) range.selectNodeContents(code);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };
  return (
    <section class="secret" role="region" aria-label={label}>
      <h2>{title}</h2>
      <p>{children}</p>
      <code id="secret-value" class="secret-value">
        {secret}
      </code>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
        <span role="status">{copied}</span>
      </div>
    </section>
  );
}
