import { AppError } from '@dynamic-events/proto';
import { createLimiter } from '@dynamic-events/proto/runtime';

/**
 * Registry streams reading history for one SSE client each (watch-hub.ts's catch-up) at once. Each
 * holds a registry message of up to 16 MiB in decoding, rendering and HTTP/2 buffers, so a resume
 * storm of clients (all reconnecting after a restart, from an old cursor) is taken a few at a time:
 * the others wait for a slot, holding nothing.
 */
const CATCH_UP_STREAMS = 8;

/** A counting semaphore of catch-up streams; `acquire` answers the slot's release (idempotent). */
export interface CatchUpSlots {
  /** Rejects with UNAVAILABLE when the client leaves first: it gets no slot, and no stream is opened. */
  acquire(signal: AbortSignal): Promise<() => void>;
  /** Slots taken now. */
  readonly taken: number;
}

export function createCatchUpSlots(slots = CATCH_UP_STREAMS): CatchUpSlots {
  const limiter = createLimiter({ limit: slots });
  return {
    get taken() {
      return limiter.held;
    },
    async acquire(signal) {
      const release = await limiter.acquire({ signal });
      if (!release) throw new AppError('UNAVAILABLE', 'the client left before its stream started', {});
      return release;
    },
  };
}
