import { createLimiter } from '@dynamic-events/proto/runtime';

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
   * otherwise in turn (the runtime's limiter, in-flight.ts). Resolves with the slot's release
   * (idempotent), or undefined when `signal` aborts or `timeoutMs` passes first.
   */
  acquire(key: string, signal: AbortSignal, timeoutMs: number): Promise<(() => void) | undefined>;
  /** Distinct pages held now. */
  readonly held: number;
}

export function createPageSlots(slots = PAGE_SLOTS): PageSlots {
  const limiter = createLimiter({ limit: slots });
  return {
    get held() {
      return limiter.held;
    },
    acquire: (key, signal, timeoutMs) => limiter.acquire({ key, signal, timeoutMs }),
  };
}
