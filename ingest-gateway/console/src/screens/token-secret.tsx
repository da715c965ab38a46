import { useState } from 'preact/hooks';

/**
 * A new token's secret, shown once: it lives in the Tokens screen's state only, so leaving the
 * screen forgets it. "Copy secret" puts it on the clipboard.
 */
export function TokenSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // Without clipboard access (an insecure origin, a refused permission), select the text instead.
      const range = document.createRange();
      const code = document.getElementById('token-secret-value');
      if (code) range.selectNodeContents(code);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };
  return (
    <section class="secret" role="region" aria-label="New token secret">
      <h2>Token “{name}” created</h2>
      <p>Copy its secret now: it is shown this once and never again. Integrations send it in the header “Authorization: Bearer” followed by the secret.</p>
      <code id="token-secret-value" class="secret-value">
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
