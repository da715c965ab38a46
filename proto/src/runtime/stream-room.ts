import type { StreamShare } from './stream-budget.js';

/** How a wait for room ended: counted ('take'), the stream must end ('cut'), no room in time ('stalled'), its caller left ('gone'). */
export type Room = 'take' | 'cut' | 'stalled' | 'gone';

/** How a stream waits for room for its next message. */
interface RoomOptions {
  /** Aborted when its client left: nothing more is written for it. */
  signal: AbortSignal;
  /** No room within this long: 'stalled'. Omitted: no limit. */
  maxWaitMs?: number;
  /** Called before each look: brings the share up to date with what its client took (a measure, not a callback per message). */
  refresh?: () => void;
  /**
   * The caller keeps the message in hand while it waits (it cannot drop it and build it again): a
   * stream holding less of its own than the message ends instead, or every such waiter would keep
   * more uncounted than it holds.
   */
  holdsMessage?: boolean;
}

/** The longest a Node timer may be. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits until the budget counts a message of `bytes` for `share` (take / wait / cut, stream-budget.ts).
 * A release wakes the wait after the turn it happened in, so a caller that left in that turn (a
 * storm of clients closing) answers 'gone' and nothing is built for nobody.
 */
export async function roomFor(share: StreamShare, bytes: number, options: RoomOptions): Promise<Room> {
  const { signal, maxWaitMs, refresh, holdsMessage = false } = options;
  const deadline = maxWaitMs === undefined ? Infinity : Date.now() + maxWaitMs;
  for (;;) {
    if (signal.aborted) return 'gone';
    refresh?.();
    const verdict = share.take(bytes);
    if (verdict !== 'wait') return verdict;
    if (holdsMessage && share.held < bytes) return 'cut';
    if (!(await share.released(signal, Math.min(deadline - Date.now(), MAX_TIMER_MS)))) return signal.aborted ? 'gone' : 'stalled';
  }
}

/** The transport under a stream that ended: resets it, and tells when it closed. */
export interface StreamEnd {
  /** Drops the stream and what it still holds (its client gets an error, then resumes). */
  reset(): void;
  /** Calls `listener` once the stream closed, however it closed. */
  onClose(listener: () => void): void;
}

/**
 * After a stream ended (its status or last bytes written), what it holds waits for its client, for
 * ever if the client stopped reading. It stays counted until the transport closes; the transport is
 * reset when another stream needs the room, or after `graceMs`, so a client that reads again soon
 * still gets the end. Closes the share at once when it holds nothing or `end` is undefined (no
 * transport left to wait for).
 *
 * The grace is a timer of its own, not AbortSignal.timeout() under AbortSignal.any(): Node 20 holds
 * such a timeout signal only weakly, and a collection before it fires would keep the stream's
 * bytes counted for good (nodejs/node#57736).
 */
export function holdUntilTaken(share: StreamShare, end: StreamEnd | undefined, graceMs: number): void {
  if (share.held <= 0 || end === undefined) return share.close();
  const timer = setTimeout(() => end.reset(), graceMs).unref();
  end.onClose(() => {
    clearTimeout(timer);
    share.close();
  });
  share.cut(() => end.reset());
}
