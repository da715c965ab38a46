import { shownUrl } from '../media-links.js';
import { visible } from '../visible-text.js';

/**
 * A URL from an event as a link (http(s) only, never followed with the referrer) or as text. A link
 * reads as its parsed href, the one a click follows: percent-encoded, its host in punycode, so no
 * bidi override or look-alike letters can show another address; text shows its escapes.
 */
export function UrlText({ url, base }: { url: string; base: string }) {
  const shown = shownUrl(url, base);
  if (shown.kind === 'text') return <span class="url-text">{visible(url)}</span>;
  return (
    <a href={shown.kind === 'link' ? shown.href : shown.path} rel="noopener noreferrer" target="_blank">
      {shown.href}
    </a>
  );
}
