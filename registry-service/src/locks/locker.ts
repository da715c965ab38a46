/**
 * A lock around the first creation of an entity, so one replica creates it and the others wait for
 * it. Advisory only: the database's UNIQUE constraints stay the real guard, so no outcome here is
 * ever an error for the caller.
 */
export interface Locker {
  /**
   * Takes the lock on `key`, or waits until its holder releases it or `deadline` (epoch ms) passes.
   * Never rejects: a lock store that cannot be reached yields the outcome "fallback".
   */
  acquire(key: string, deadline: number): Promise<Lease>;
  /**
   * Optional fast path: tries the keys in order in ONE round trip without waiting. Per key, in
   * order, the lease (acquired) or null (another holder has it); it may stop at the first null and
   * leave the later keys out. Rejects when the store cannot be reached.
   */
  tryAcquireAll?(keys: string[]): Promise<Array<Lease | null>>;
  close(): Promise<void>;
}

/**
 * acquired: this caller holds the lock. contended: another holder finished while we waited.
 * timeout: we waited until the deadline and go on without it. fallback: the lock store failed.
 */
type AcquireOutcome = 'acquired' | 'contended' | 'timeout' | 'fallback';

/** released: ours and deleted. expired: not ours any more (TTL passed). failed: store unreachable. not-held: nothing to release. */
type ReleaseOutcome = 'released' | 'expired' | 'failed' | 'not-held';

export interface Lease {
  readonly outcome: AcquireOutcome;
  /** Why the store failed, for the log (fallback only). */
  readonly error?: unknown;
  release(): Promise<ReleaseOutcome>;
}

/** A lease for a lock this caller does not hold. */
export function unheldLease(outcome: Exclude<AcquireOutcome, 'acquired'>, error?: unknown): Lease {
  return { outcome, error, release: () => Promise.resolve('not-held') };
}

/** Resolves after `ms` (at most), or at once when `ms` ≤ 0. */
export function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
