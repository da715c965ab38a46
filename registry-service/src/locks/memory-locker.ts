import type { Lease, Locker } from './locker.js';
import { unheldLease } from './locker.js';

interface Holder {
  released: Promise<void>;
  release: () => void;
  timer: NodeJS.Timeout;
}

/**
 * The in-process lock for a single replica (no REDIS_URL): same semantics as the Redis lock,
 * including the TTL, so a leaked lease cannot block a key forever.
 */
export function createMemoryLocker(options: { ttlMs: number }): Locker {
  const holders = new Map<string, Holder>();

  function take(key: string): Lease {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const timer = setTimeout(() => drop(key, holder), options.ttlMs);
    timer.unref();
    const holder: Holder = { released, release, timer };
    holders.set(key, holder);
    return { outcome: 'acquired', release: () => Promise.resolve(drop(key, holder) ? 'released' : 'expired') };
  }

  function drop(key: string, holder: Holder): boolean {
    if (holders.get(key) !== holder) return false;
    holders.delete(key);
    clearTimeout(holder.timer);
    holder.release();
    return true;
  }

  return {
    async acquire(key, deadline) {
      const current = holders.get(key);
      if (!current) return take(key);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now()))));
      const done = await Promise.race([current.released.then(() => false), timedOut]);
      clearTimeout(timer);
      return unheldLease(done ? 'timeout' : 'contended');
    },
    async close() {
      for (const [key, holder] of holders) drop(key, holder);
    },
  };
}
