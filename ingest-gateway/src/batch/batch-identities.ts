import { fullObjectId, identityConflict } from '@dynamic-events/proto';
import type { EventInput } from '../model.js';

/**
 * One full object id names one object within a batch too: the first event spelling it decides its
 * split (object_domain, object_id), and a later event spelling it with another split is refused
 * with the shared rule's 409, before anything of it is stored (the registry would refuse it anyway,
 * but only after its image was stored). Events must be claimed in batch order.
 */
export function createBatchIdentities(): (input: EventInput) => void {
  const splits = new Map<string, string>();
  return ({ source }) => {
    const fullId = fullObjectId(source.objectDomain, source.objectId);
    const domain = splits.get(fullId);
    if (domain === undefined) splits.set(fullId, source.objectDomain);
    else if (domain !== source.objectDomain) throw identityConflict({ objectDomain: domain, objectId: fullId.slice(domain.length + 1) }, source)!;
  };
}
