import { AppError } from '@dynamic-events/proto';

/**
 * Registry streams reading history for one SSE client each (watch-hub.ts's catch-up) at once. Each
 * holds a registry message of up to 16 MiB in decoding, rendering and HTTP/2 buffers, so a resume
 * storm of clients (all reconnecting after a restart, from an old cursor) is taken a few at a time:
 * the others wait for a slot, holding nothing.
 */
const CATCH_UP_STREAMS = 8;

/** A counting semaphore of catch-up streams; `acquire` answers the slot's release (idempotent). */
export interface CatchUpSlots {
  acquire(signal: AbortSignal): Promise<() => void>;
  /** Slots taken now. */
  readonly taken: number;
}

export function createCatchUpSlots(slots = CATCH_UP_STREAMS): CatchUpSlots {
  let taken = 0;
  const waiting: Array<() => void> = [];
  const grant = (): (() => void) => {
    taken++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      taken--;
      waiting.shift()?.();
    };
  };
  return {
    get taken() {
      return taken;
    },
    acquire(signal) {
      if (taken < slots && waiting.length === 0) return Promise.resolve(grant());
      return new Promise((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener('abort', left);
          resolve(grant());
        };
        const left = () => {
          const at = waiting.indexOf(turn);
          if (at >= 0) waiting.splice(at, 1);
          reject(new AppError('UNAVAILABLE', 'the client left before its stream started', {}));
        };
        if (signal.aborted) return left();
        waiting.push(turn);
        signal.addEventListener('abort', left, { once: true });
      });
    },
  };
}
