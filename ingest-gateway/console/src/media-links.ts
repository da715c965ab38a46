/**
 * How the console shows a URL from an event. Every URL comes from an unauthenticated device or a
 * vendor: only an image this gateway stored is loaded (through the same-origin path, which the
 * CSP's img-src 'self' allows); any other http(s) URL is a link the operator may choose to follow,
 * and anything else (javascript:, data:, garbage) is plain text.
 */
type ShownUrl = { kind: 'stored'; path: string; href: string } | { kind: 'link'; href: string } | { kind: 'text' };

/** A stored image's key: the SHA-256 of its bytes and the extension of its real format. */
const STORED_KEY = /^[0-9a-f]{64}\.(?:jpg|png|gif|webp)$/;

/**
 * `base` is the API base path (`/api/platform/dh`). A URL whose path is `{base}/media/{key}` names
 * an image of this gateway's store whatever host it spells (PUBLIC_BASE_URL may differ from the
 * address the operator uses); the key is its content hash, so the relative path shows those bytes.
 */
export function shownUrl(raw: string, base: string): ShownUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'text' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'text' };
  const prefix = `${base}/media/`;
  if (url.pathname.startsWith(prefix) && url.search === '' && STORED_KEY.test(url.pathname.slice(prefix.length))) {
    return { kind: 'stored', path: url.pathname, href: url.href };
  }
  return { kind: 'link', href: url.href };
}
