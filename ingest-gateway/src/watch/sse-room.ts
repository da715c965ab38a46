import type { ServerResponse } from 'node:http';
import type { PassThrough } from 'node:stream';
import { createStreamBudget, holdUntilTaken, roomFor, type Room, type StreamBudget } from '@dynamic-events/proto/runtime';

/** Bytes one SSE response may hold in the gateway (its body stream and the socket's buffer) beyond one chunk. */
const SSE_STREAM_HELD_BYTES = 4 * 1024 * 1024;
/** The same for every SSE response of the gateway together: what clients that stop reading cost it at most. */
const SSE_PROCESS_HELD_BYTES = 64 * 1024 * 1024;

/** The gateway's budget of SSE bytes (one per app). */
export const createSseBudget = (): StreamBudget => createStreamBudget({ streamBytes: SSE_STREAM_HELD_BYTES, totalBytes: SSE_PROCESS_HELD_BYTES });

/** One response's part of the budget, read from what its body and socket still hold. */
export interface SseRoom {
  /**
   * Waits until a chunk of `bytes` may be written: 'take' (counted), 'cut' (the gateway is at its
   * bound and this client holds more than its share: end the response), 'stalled' (no room within
   * `maxWaitMs`), or 'gone' (`signal` aborted).
   */
  room(bytes: number, signal: AbortSignal, maxWaitMs: number): Promise<Room>;
  /** Waits until the client took what it was sent, down to SSE_STREAM_HELD_BYTES: 'stalled' after `maxWaitMs`. */
  caughtUp(signal: AbortSignal, maxWaitMs: number): Promise<'ok' | 'stalled'>;
  /** The response ended: what it still holds counts until it closes, and the socket goes when another needs the room or after `graceMs`. */
  close(destroy: () => void, graceMs: number): void;
}

export function createSseRoom(budget: StreamBudget, out: PassThrough, res: ServerResponse): SseRoom {
  const share = budget.open();
  // Bytes this client has yet to take: the body stream's buffers and the response's (its socket's).
  const held = () => out.readableLength + out.writableLength + res.writableLength;
  const refresh = () => share.release(share.held - held());
  out.on('drain', refresh);
  res.on('drain', refresh);
  return {
    // Holding the chunk in hand while it waits: a client with less of its own held back than the
    // chunk ends (and resumes) instead, or waiting would keep more uncounted than it holds.
    room: (bytes, signal, maxWaitMs) => roomFor(share, bytes, { signal, maxWaitMs, refresh, holdsMessage: true }),
    async caughtUp(signal, maxWaitMs) {
      const deadline = Date.now() + maxWaitMs;
      for (;;) {
        refresh();
        if (share.held < SSE_STREAM_HELD_BYTES || signal.aborted) return 'ok';
        if (!(await share.released(signal, deadline - Date.now())) && !signal.aborted) return 'stalled';
      }
    },
    close(destroy, graceMs) {
      out.off('drain', refresh);
      refresh();
      const gone = res.writableFinished || res.destroyed;
      holdUntilTaken(share, gone ? undefined : { reset: destroy, onClose: (listener) => void res.once('close', listener) }, graceMs);
    },
  };
}
