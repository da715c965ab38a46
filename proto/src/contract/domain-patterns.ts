/**
 * A token's `domains` patterns (its policy): `acme.camera.video` allows exactly that object_domain,
 * `acme.camera.*` every domain below `acme.camera` (not `acme.camera` itself): the `*` stands for
 * one or more non-empty labels, so `acme.camera..` or `acme.camera.x.` is not below it; `*` any domain.
 * The registry checks that a policy's patterns have this shape; the gateway matches them against
 * each event. Matching is exact, character for character, like the identities it compares.
 */
const ANY_DOMAIN = '*';
const SUBDOMAINS = '.*';

/** True when `domain` is allowed by one of `patterns`. */
export function domainAllowed(patterns: readonly string[], domain: string): boolean {
  for (const pattern of patterns) {
    if (pattern === ANY_DOMAIN || pattern === domain) return true;
    if (pattern.endsWith(SUBDOMAINS)) {
      const parent = pattern.slice(0, -1); // keeps the dot: "acme.camera."
      if (domain.length > parent.length && domain.startsWith(parent) && labelsBelow(domain, parent.length)) return true;
    }
  }
  return false;
}

/** Whether domain[from…] is one or more non-empty dot-separated labels (no allocation). */
function labelsBelow(domain: string, from: number): boolean {
  if (domain.charCodeAt(from) === DOT || domain.charCodeAt(domain.length - 1) === DOT) return false;
  return !domain.includes('..', from);
}

const DOT = 0x2e;
