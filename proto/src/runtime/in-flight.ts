/** Gives back what an acquire took; calling it again does nothing. */
export type Release = () => void;

/** How one caller waits for a unit. */
interface AcquireOptions {
  /** Aborted: the wait ends with undefined (its caller left), and nothing is taken for it. */
  signal?: AbortSignal;
  /** The wait ends with undefined after this long; omitted: it waits as long as its caller stays. */
  timeoutMs?: number;
  /**
   * Callers of one key share one unit (watchers reading the same page share its read): a caller
   * of a key held already joins it at once, even with others waiting. Omitted: a unit of its own.
   */
  key?: unknown;
}

/** A bound on what is in flight: `acquire` hands back the release of what it took. */
export interface Limiter {
  /**
   * A unit, at once when one is free (or its key is held), otherwise in turn.
   * Resolves with its release, or undefined when the caller left or its time passed first.
   */
  acquire(options?: AcquireOptions): Promise<Release | undefined>;
  /** A unit at once, or undefined when none is free. */
  tryAcquire(key?: unknown): Release | undefined;
  /** Units held now (distinct keys). */
  readonly held: number;
  /** Callers waiting for a unit. */
  readonly waiting: number;
}

interface LimiterOptions {
  /** Units held at once; omitted: no bound (the limiter only counts its holders). */
  limit?: number;
  /** Called with the units held after each change of their number. */
  onChange?: (held: number) => void;
}

interface Waiter {
  key: unknown;
  grant(): void;
}

/**
 * A caller's wait for a unit: `waiter.grant` takes it for the caller, `forget` drops the waiter
 * when the caller leaves or its time passes first.
 */
function waitInTurn(key: unknown, take: () => Release, forget: (waiter: Waiter) => void, signal: AbortSignal | undefined, timeoutMs: number | undefined): { waiter: Waiter; answer: Promise<Release | undefined> } {
  let waiter!: Waiter;
  const answer = new Promise<Release | undefined>((resolve) => {
    const done = (release: Release | undefined) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', leave);
      resolve(release);
    };
    // Granted when another caller let its unit go, often because its client left: clients
    // leaving together (a storm closing) end one after another within one turn of the event
    // loop, so the turn ends first, and a caller whose client left meanwhile takes nothing.
    let granted = false;
    waiter = {
      key,
      grant: () => {
        granted = true;
        const release = take();
        setImmediate(() => {
          if (!signal?.aborted) return done(release);
          release();
          done(undefined);
        });
      },
    };
    const leave = () => {
      if (granted) return; // the grant answers, giving the unit back if the caller left
      forget(waiter);
      done(undefined);
    };
    // A timer of its own, not AbortSignal.timeout() under AbortSignal.any(): Node 20 holds such
    // a timeout signal only weakly, and a collection before it fires would let the wait outlive
    // its limit for good (nodejs/node#57736).
    const timer = timeoutMs === undefined ? undefined : setTimeout(leave, Math.max(timeoutMs, 0));
    signal?.addEventListener('abort', leave, { once: true });
  });
  return { waiter, answer };
}

/**
 * The one way this code bounds what is in flight (streams, slots, attempts): nothing counts by
 * hand, so every way out of a path (an error, a caller that left, a second call) gives back once.
 */
export function createLimiter(options: LimiterOptions = {}): Limiter {
  const limit = options.limit ?? Infinity;
  // Holders of each key (a caller without a key holds a key of its own).
  const holders = new Map<unknown, number>();
  const waiting: Waiter[] = [];
  const changed = () => options.onChange?.(holders.size);

  const take = (key: unknown): Release => {
    const count = holders.get(key) ?? 0;
    holders.set(key, count + 1);
    if (count === 0) changed();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (holders.get(key) ?? 1) - 1;
      if (left > 0) return void holders.set(key, left);
      holders.delete(key);
      changed();
      grantWaiting();
    };
  };

  // In order of arrival while units are free; a waiter for a key already held joins it.
  function grantWaiting(): void {
    for (let i = 0; i < waiting.length; ) {
      const waiter = waiting[i]!;
      if (holders.has(waiter.key) || holders.size < limit) {
        waiting.splice(i, 1);
        waiter.grant();
      } else i++;
    }
  }

  const forget = (waiter: Waiter) => {
    const at = waiting.indexOf(waiter);
    if (at >= 0) waiting.splice(at, 1);
  };

  // Waiters exist only while every unit is held (a release grants them first), so a free unit is free to take.
  const free = (key: unknown) => holders.has(key) || holders.size < limit;

  return {
    get held() {
      return holders.size;
    },
    get waiting() {
      return waiting.length;
    },
    tryAcquire(key = Symbol('unit')) {
      return free(key) ? take(key) : undefined;
    },
    acquire({ signal, timeoutMs, key = Symbol('unit') } = {}) {
      if (signal?.aborted) return Promise.resolve(undefined);
      if (free(key)) return Promise.resolve(take(key));
      const { waiter, answer } = waitInTurn(key, () => take(key), forget, signal, timeoutMs);
      waiting.push(waiter);
      return answer;
    },
  };
}
