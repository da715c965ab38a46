import { createHash } from 'node:crypto';
import { AppError, IDEMPOTENCY_KEY_HEADER } from '@dynamic-events/proto';
import type { RegistryClient } from '../clients/registry.js';
import type { CallOptions, IdempotencyInput } from '../model.js';

/**
 * Idempotency-Key on a batch. Each event is recorded under a key of its own, derived from the
 * batch's key and its place (`batch:{sha256 of the key}:{i}`, within the key rules), with the
 * fingerprint of the whole body: a retry of the same body gets every event recorded the first time
 * back (nothing written twice) and the others judged again, as the first time. Before anything is
 * sent the registry is asked which of these keys are committed: one committed for another body
 * makes the whole call a 409, with nothing stored. (Two different bodies sent with one key at the
 * same moment both pass that check; each event's key then decides alone.)
 */
export async function batchKeys(
  registry: Pick<RegistryClient, 'findRequestKeys'>,
  batch: IdempotencyInput,
  count: number,
  tokenId: string | undefined,
  call: CallOptions,
): Promise<IdempotencyInput[]> {
  const prefix = `batch:${createHash('sha256').update(batch.key).digest('hex')}:`;
  const keys = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  const committed = await registry.findRequestKeys(tokenId, keys, call);
  for (const hash of committed.values()) {
    if (hash !== batch.requestHash) {
      throw new AppError('ALREADY_EXISTS', `${IDEMPOTENCY_KEY_HEADER} was already used for a different request`, { field: IDEMPOTENCY_KEY_HEADER, rule: 'key-reused' });
    }
  }
  return keys.map((key) => ({ key, requestHash: batch.requestHash }));
}
