import { AppError, fullObjectId, identityConflict } from '@dynamic-events/proto';
import type { CallOptions, EventInput } from '../model.js';
import type { RegistryClient } from '../clients/registry.js';

/** Identifiers remembered; beyond it the memory starts over (a cache of facts that never change). */
const MAX_REMEMBERED = 50_000;

/**
 * Refuses, before an image is stored, a source whose pair spells an existing object's full
 * identifier with another domain, so that its 409 stores nothing. Who owns an identifier never
 * changes (objects are neither renamed nor deleted), so owners learnt from the registry (a lookup,
 * or any event it recorded) are remembered: a known object costs no call. The registry's constraint
 * still decides when two such requests race.
 */
interface IdentityGuard {
  check(input: EventInput, call: CallOptions): Promise<void>;
  /** An event the registry recorded: its object is owned by its domain. */
  learn(domain: string, objectId: string): void;
}

export function createIdentityGuard(registry: Pick<RegistryClient, 'getObject'>): IdentityGuard {
  const owners = new Map<string, string>();
  const remember = (fullId: string, domain: string) => {
    if (owners.size >= MAX_REMEMBERED) owners.clear();
    owners.set(fullId, domain);
  };
  return {
    async check(input, call) {
      const { objectDomain, objectId } = input.source;
      const fullId = fullObjectId(objectDomain, objectId);
      const known = owners.get(fullId);
      if (known === objectDomain) return;
      if (known !== undefined) throw identityConflict({ objectDomain: known, objectId: fullId.slice(known.length + 1) }, input.source)!;
      const existing = await registry.getObject(fullId, call).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      });
      if (!existing) return;
      remember(fullId, existing.objectDomain);
      const conflict = identityConflict(existing, input.source);
      if (conflict) throw conflict;
    },
    learn(domain, objectId) {
      remember(fullObjectId(domain, objectId), domain);
    },
  };
}
