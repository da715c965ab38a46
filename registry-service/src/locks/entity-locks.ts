import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { Lease, Locker } from './locker.js';
import { unheldLease } from './locker.js';

interface EntityLocksOptions {
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

  /** Counts and, for trouble, logs one key's outcome; `started` is when its wait began. */
  function noted(lease: Lease, started: number): Lease {
    metrics.lockWaitSeconds.observe((performance.now() - started) / 1000);
    metrics.lockOutcomes.inc({ outcome: lease.outcome });
    if (lease.outcome === 'fallback' && lease.error !== undefined) {
      warn('fallback', { err: lease.error }, 'entity lock store unreachable; relying on database constraints');
    } else if (lease.outcome === 'timeout') {
      warn('timeout', { waitMs: options.waitMs }, 'waited LOCK_WAIT_MS for an entity lock; proceeding without it');
    }
    return lease;
  }

  /**
   * Several keys (a batch of first sightings): one round trip tries them in order. When one is held
   * by another caller, any keys after it are given back (a locker may not have taken them) and taken
   * one by one from there, so a caller waiting for a key holds only keys that sort before it: two
   * callers never wait on each other.
   */
  async function tryAll(sorted: string[], leases: Lease[]): Promise<string[]> {
    if (!locker.tryAcquireAll || sorted.length < 2) return sorted;
    const started = performance.now();
    let tried: Array<Lease | null>;
    try {
      tried = await locker.tryAcquireAll(sorted);
    } catch (err) {
      // One warning, then every key without its lock: the constraints keep the data right.
      leases.push(...sorted.map(() => noted(unheldLease('fallback', err), started)));
      return [];
    }
    const busy = tried.indexOf(null);
    const kept = busy === -1 ? tried : tried.slice(0, busy);
    if (busy !== -1) await Promise.all(tried.slice(busy + 1).map((lease) => lease?.release()));
    for (const lease of kept) leases.push(noted(lease!, started));
    return busy === -1 ? [] : sorted.slice(busy);
  }

  return async (keys, fn) => {
    const deadline = Date.now() + options.waitMs;
    const leases: Lease[] = [];
    try {
      for (const key of await tryAll([...new Set(keys)].sort(), leases)) {
        const started = performance.now();
        // Once the store failed, the remaining keys would only fail again: skip the round trips.
        const lease = leases.some((l) => l.outcome === 'fallback') ? unheldLease('fallback') : await locker.acquire(key, deadline);
        leases.push(noted(lease, started));
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
