/**
 * A token's `domains` patterns (its policy): `acme.camera.video` allows exactly that object_domain,
 * `acme.camera.*` every domain below `acme.camera` (not `acme.camera` itself), `*` any domain.
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
      if (domain.length > parent.length && domain.startsWith(parent)) return true;
    }
  }
  return false;
}
