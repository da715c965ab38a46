/*
 * Domain patterns (a token policy's `domains`, the lists' `domain_patterns`) in SQL, with exactly the
 * semantics of domainAllowed in @dynamic-events/proto (a property test holds them equal on this
 * PostgreSQL): an exact pattern is an equality; `a.b.*` keeps its parent with the dot, `a.b.`, and
 * matches a domain that starts with it (starts_with compares characters, no LIKE wildcard such as
 * `_` can slip in), is longer, and has no empty label (the parent has none and ends with its dot, so
 * `..` anywhere or a final `.` means an empty label below it); `*` matches every domain, so the
 * caller drops the filter (domainScopeOf answers undefined).
 */

/** A filter's patterns as the statements take them: exact domains and the parents of the `.*` ones. */
export interface DomainScope {
  exact: string[];
  parents: string[];
}

/** The scope of well-formed patterns; undefined when one of them is `*` (no filter). */
export function domainScopeOf(patterns: readonly string[]): DomainScope | undefined {
  if (patterns.includes('*')) return undefined;
  const exact = patterns.filter((p) => !p.endsWith('.*'));
  const parents = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1));
  return { exact, parents };
}

/** The condition that `column` lies below one of the parents (`parents`: a text[] parameter). */
function belowParentSql(column: string, parents: string): string {
  return `(strpos(${column}, '..') = 0 AND right(${column}, 1) <> '.'
    AND EXISTS (SELECT 1 FROM unnest(${parents}::text[]) AS s(parent) WHERE starts_with(${column}, s.parent) AND length(${column}) > length(s.parent)))`;
}

/** The condition that `column` matches the scope whose arrays are the parameters `exact` and `parents`. */
export function domainMatchSql(column: string, exact: string, parents: string): string {
  return `(${column} = ANY(${exact}::text[]) OR ${belowParentSql(column, parents)})`;
}

/**
 * The stored domains a scope matches, as a relation `(scope_domain)`: the exact ones as given (an
 * equality needs no lookup), and the domains of event_types below a parent. Every event's and every
 * object's domain is an event type's domain (the write statement creates the three together and
 * nothing deletes event types), so a list joins this relation to its table and reads each domain
 * along the table's (domain, …) index, in order, instead of filtering the whole table. An empty
 * scope yields no row.
 */
export function scopeDomainsSql(exact: string, parents: string): string {
  return `(SELECT x.d FROM unnest(${exact}::text[]) AS x(d)
     UNION
     SELECT DISTINCT t.domain FROM event_types t WHERE cardinality(${parents}::text[]) > 0 AND ${belowParentSql('t.domain', parents)}) AS scope(scope_domain)`;
}
