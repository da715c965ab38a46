import { AppError } from './app-error.js';

/**
 * Object identity, one owner for both services. The spec's full identifier is the domain, a dot and
 * the object id, so two different pairs can spell one identifier: ("col.a.b", "c") and ("col.a",
 * "b.c"). The first to arrive owns the identifier; the other is refused, never silently attached.
 */
export function fullObjectId(objectDomain: string, objectId: string): string {
  return `${objectDomain}.${objectId}`;
}

/** The refusal (409) of a source whose pair spells an existing object's identifier with another domain. */
export function identityConflict(fullId: string, existing?: { objectDomain: string; objectId: string }): AppError {
  const owner = existing ? ` (object_domain ${JSON.stringify(existing.objectDomain)}, object_id ${JSON.stringify(existing.objectId)})` : '';
  return new AppError(
    'ALREADY_EXISTS',
    `source.object_id: the object ${JSON.stringify(fullId)} already exists${owner}; this object_domain and object_id spell the same identifier: choose another object_id`,
    { field: 'source.object_id', rule: 'object-identity' },
  );
}
