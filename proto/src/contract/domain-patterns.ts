import { invalidArgument } from './app-error.js';

/**
 * A token's `domains` patterns (its policy), also a list filter (`domain_patterns`): `acme.camera.video`
 * allows exactly that object_domain, `acme.camera.*` every domain below `acme.camera` (not
 * `acme.camera` itself): the `*` stands for one or more non-empty labels, so `acme.camera..` or
 * `acme.camera.x.` is not below it; `*` any domain. The registry checks that patterns have this
 * shape (checkDomainPattern) and matches them in SQL with the same semantics; the gateway matches
 * them against each event. Matching is exact, character for character, like the identities it compares.
 */
const ANY_DOMAIN = '*';
const SUBDOMAINS = '.*';

/** An object_domain is at most 255 characters: a longer pattern could never match one. */
const DOMAIN_PATTERN_MAX_LENGTH = 255;
/** Patterns in one policy or filter at most: bounds what every gateway holds and checks per token. */
export const DOMAIN_PATTERNS_MAX_COUNT = 1000;

/** Lowercase labels of letters, digits, `_` or `-`, dot-separated, optionally ending in `.*`; or `*` alone. */
const DOMAIN_PATTERN = /^(?:\*|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*(?:\.\*)?)$/;

/** Checks one pattern's shape; throws INVALID_ARGUMENT naming `field` (`policy.domains[2]`). */
export function checkDomainPattern(field: string, value: string): void {
  if (value === '') throw invalidArgument(field, 'required', `${field} must not be empty`);
  if (value.length > DOMAIN_PATTERN_MAX_LENGTH) throw invalidArgument(field, 'max-length', `${field} must be at most ${DOMAIN_PATTERN_MAX_LENGTH} characters`);
  if (!DOMAIN_PATTERN.test(value)) {
    throw invalidArgument(
      field,
      'domain-pattern',
      `${field} must be a domain of lowercase letters, digits, "_" or "-" labels separated by dots, optionally ending in ".*", or "*"`,
    );
  }
}

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

/**
 * True when every domain that the well-formed `pattern` matches is allowed by `patterns`: an exact
 * domain must be allowed itself; `a.b.*` needs `*`, `a.b.*` itself, or a pattern allowing `a.b`
 * through its own `.*` (every domain below a domain below `a` is below `a`); `*` needs `*`.
 */
export function patternWithin(patterns: readonly string[], pattern: string): boolean {
  if (patterns.includes(ANY_DOMAIN) || patterns.includes(pattern)) return true;
  if (pattern === ANY_DOMAIN) return false;
  if (!pattern.endsWith(SUBDOMAINS)) return domainAllowed(patterns, pattern);
  const base = pattern.slice(0, -SUBDOMAINS.length);
  return patterns.some((p) => p.endsWith(SUBDOMAINS) && domainAllowed([p], base));
}

/** Whether domain[from…] is one or more non-empty dot-separated labels (no allocation). */
function labelsBelow(domain: string, from: number): boolean {
  if (domain.charCodeAt(from) === DOT || domain.charCodeAt(domain.length - 1) === DOT) return false;
  return !domain.includes('..', from);
}

const DOT = 0x2e;
