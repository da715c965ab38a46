import { shownUrl } from '../media-links.js';

/** A URL from an event as a link (http(s) only, never followed with the referrer) or as text. */
export function UrlText({ url, base }: { url: string; base: string }) {
  const shown = shownUrl(url, base);
  if (shown.kind === 'text') return <span class="url-text">{url}</span>;
  return (
    <a href={shown.kind === 'link' ? shown.href : shown.path} rel="noopener noreferrer" target="_blank">
      {url}
    </a>
  );
}
