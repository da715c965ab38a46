import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { Lease, Locker } from './locker.js';
import { unheldLease } from './locker.js';

export interface EntityLocksOptions {
  locker: Locker;
  /** Total time one call may wait for locks held by other creators (LOCK_WAIT_MS). */
  waitMs: number;
  metrics: Metrics;
  logger: Logger;
}

/** Runs a function while holding the creation locks of the given entity keys. */
export type EntityLocks = <T>(keys: string[], fn: () => Promise<T>) => Promise<T>;

/**
 * Takes the locks in sorted order (two calls never wait on each other crosswise), runs `fn`, then
 * releases them. Lock trouble never fails the call: it is counted, logged at most every 10 s per
 * kind, and the database constraints keep the data right.
 */
export function createEntityLocks(options: EntityLocksOptions): EntityLocks {
  const { locker, metrics, logger } = options;
  const lastWarned = new Map<string, number>();
  const suppressed = new Map<string, number>();

  function warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - (lastWarned.get(kind) ?? 0) < 10_000) {
      suppressed.set(kind, (suppressed.get(kind) ?? 0) + 1);
      return;
    }
    lastWarned.set(kind, now);
    logger.warn({ ...fields, suppressed: suppressed.get(kind) ?? 0 }, message);
    suppressed.set(kind, 0);
  }

  return async (keys, fn) => {
    const deadline = Date.now() + options.waitMs;
    const leases: Lease[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) {
        const started = performance.now();
        // Once the store failed, the remaining keys would only fail again: skip the round trips.
        const lease = leases.some((l) => l.outcome === 'fallback') ? unheldLease('fallback') : await locker.acquire(key, deadline);
        metrics.lockWaitSeconds.observe((performance.now() - started) / 1000);
        metrics.lockOutcomes.inc({ outcome: lease.outcome });
        if (lease.outcome === 'fallback' && lease.error !== undefined) {
          warn('fallback', { err: lease.error }, 'entity lock store unreachable; relying on database constraints');
        } else if (lease.outcome === 'timeout') {
          warn('timeout', { waitMs: options.waitMs }, 'waited LOCK_WAIT_MS for an entity lock; proceeding without it');
        }
        leases.push(lease);
      }
      return await fn();
    } finally {
      const results = await Promise.all(leases.map((lease) => lease.release()));
      for (const result of results) {
        if (result === 'expired') {
          metrics.lockOutcomes.inc({ outcome: 'expired' });
          warn('expired', {}, 'entity lock expired before release (LOCK_TTL_MS too short?); database constraints kept the data right');
        } else if (result === 'failed') {
          warn('release-failed', {}, 'could not release an entity lock; it will expire after LOCK_TTL_MS');
        }
      }
    }
  };
}
