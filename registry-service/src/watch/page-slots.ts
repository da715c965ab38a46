/**
 * Pages the feed reads from the database for watchers, held at once: a watcher keeps its page
 * until it moved past it, and a watcher whose client stopped reading keeps it until its stall limit
 * ends the stream. Watchers resuming from many different old cursors (a resume storm) would each
 * hold a page of up to PAGE_BYTES of events (plus their protobuf encoding) while they wait to send:
 * 50 of them held about 400 MiB. With a slot per distinct page, the others wait for one, holding
 * nothing but their position. Watchers asking for the same page share its slot, as they share its
 * read; pages the horizon's polls read for the watchers at the tail need none (they are kept
 * within their own byte bound), so live delivery never waits behind a storm.
 */
const PAGE_SLOTS = 4;

export interface PageSlots {
  /**
   * A slot for the page `key`: at once when a watcher holds that page already or a slot is free,
   * otherwise in turn. Resolves with the slot's release (idempotent), or undefined when `signal`
   * aborts or `timeoutMs` passes first.
   */
  acquire(key: string, signal: AbortSignal, timeoutMs: number): Promise<(() => void) | undefined>;
  /** Distinct pages held now. */
  readonly held: number;
}

interface Waiter {
  key: string;
  grant(): void;
}

export function createPageSlots(slots = PAGE_SLOTS): PageSlots {
  // Watchers holding each page.
  const holders = new Map<string, number>();
  const waiting: Waiter[] = [];

  const take = (key: string): (() => void) => {
    holders.set(key, (holders.get(key) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (holders.get(key) ?? 1) - 1;
      if (left > 0) holders.set(key, left);
      else {
        holders.delete(key);
        grantWaiting();
      }
    };
  };

  // In order of arrival while slots are free; a waiter for a page already held joins it at once.
  function grantWaiting(): void {
    for (let i = 0; i < waiting.length; ) {
      const waiter = waiting[i]!;
      if (holders.has(waiter.key) || holders.size < slots) {
        waiting.splice(i, 1);
        waiter.grant();
      } else i++;
    }
  }

  return {
    get held() {
      return holders.size;
    },
    acquire(key, signal, timeoutMs) {
      if (signal.aborted) return Promise.resolve(undefined);
      if (holders.has(key) || (holders.size < slots && waiting.length === 0)) return Promise.resolve(take(key));
      return new Promise((resolve) => {
        const done = (release: (() => void) | undefined) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', leave);
          resolve(release);
        };
        // Granted when another watcher let its page go, often because its client left: clients
        // leaving together (a storm closing) end one after another within one turn of the event
        // loop, so the turn ends first, and a watcher whose client left meanwhile reads nothing.
        let granted = false;
        const waiter: Waiter = {
          key,
          grant: () => {
            granted = true;
            const release = take(key);
            setImmediate(() => {
              if (!signal.aborted) return done(release);
              release();
              done(undefined);
            });
          },
        };
        const leave = () => {
          if (granted) return; // the grant answers, releasing the slot if the client left
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          done(undefined);
        };
        const timer = setTimeout(leave, Math.max(timeoutMs, 0));
        signal.addEventListener('abort', leave, { once: true });
        waiting.push(waiter);
      });
    },
  };
}
