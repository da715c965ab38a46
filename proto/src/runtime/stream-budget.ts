import { collectGarbage } from './memory-return.js';

/** Bytes a server stream may hold that its client has not taken yet (written, not flushed to HTTP/2). */
const STREAM_HELD_BYTES = 4 * 1024 * 1024;
/** The same for every server stream of a process together: what non-reading clients cost it at most. */
const PROCESS_HELD_BYTES = 32 * 1024 * 1024;

/** What a stream may do with its next message. */
type Verdict = 'take' | 'wait' | 'cut';

/** One stream's part of the budget. */
export interface StreamShare {
  /** Bytes this stream holds now. */
  readonly held: number;
  /**
   * Counts a message of `bytes` when it fits; 'wait' while its own client has yet to take what it
   * holds, or while the process is at its bound and this stream holds nothing; 'cut' when the
   * process is at its bound and this stream holds more than its even share of it.
   */
  take(bytes: number): Verdict;
  /** Its client took `bytes` of what it held. */
  release(bytes: number): void;
  /** Resolves true at the next release of any stream, false after `ms` or once `signal` aborts. */
  released(signal: AbortSignal, ms: number): Promise<boolean>;
  /**
   * The stream was ended but what it holds waits for its client; `reset` drops it. Called when
   * another stream needs room, so a client that reads again soon still gets the status.
   */
  cut(reset: () => void): void;
  /** The stream ended: what it held stops counting. */
  close(): void;
}

/** Bytes held by server streams, per stream and per process. */
export interface StreamBudget {
  /** Bytes every open stream holds together. */
  readonly held: number;
  /** Streams open now. */
  readonly streams: number;
  open(): StreamShare;
}

/** Limits of a budget (defaults: STREAM_HELD_BYTES and PROCESS_HELD_BYTES). */
interface BudgetOptions {
  streamBytes?: number;
  totalBytes?: number;
  /**
   * Called once the streams held at least RETURN_AFTER_BYTES and then nothing for RETURN_DELAY_MS
   * (default: a full garbage collection, memory-return.ts).
   */
  onQuiet?: () => void;
}

/** What streams must have held before their going is worth a collection, and the quiet before it. */
const RETURN_AFTER_BYTES = 4 * 1024 * 1024;
const RETURN_DELAY_MS = 5000;

/**
 * Resolves true at the next call of a waiter (a release), false after `ms` or once `signal` aborts.
 * A release answers once the event loop's turn ends: clients that leave together (a storm closing)
 * end their streams one after another within one turn, each releasing room, and a waiter whose own
 * client left in that turn must not take the room to serialize a message for nobody.
 */
function nextRelease(waiters: Set<() => void>, signal: AbortSignal, ms: number): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      waiters.delete(onRelease);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onRelease = () => {
      waiters.delete(onRelease);
      setImmediate(() => done(!signal.aborted));
    };
    const onAbort = () => done(false);
    const timer = setTimeout(onAbort, Math.max(ms, 0));
    waiters.add(onRelease);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls `onQuiet` once the streams held at least RETURN_AFTER_BYTES and then nothing for
 * RETURN_DELAY_MS: a storm of clients that stopped reading leaves its buffers as garbage, which an
 * idle process would keep (no allocation, no collection) long after they went.
 */
function whenQuiet(onQuiet: () => void): { saw(held: number): void; settle(held: number): void } {
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    saw(held) {
      if (held > peak) peak = held;
    },
    settle(held) {
      clearTimeout(timer);
      timer = undefined;
      if (held > 0 || peak < RETURN_AFTER_BYTES) return;
      timer = setTimeout(() => {
        timer = undefined;
        peak = 0;
        onQuiet();
      }, RETURN_DELAY_MS).unref();
    },
  };
}

/**
 * Accounts each message by its encoded size from the write until its client took it, so what a
 * process keeps for clients that stop reading is bounded by bytes, not messages (a message may be
 * 16 MiB). A single message larger than the stream's bound still goes, alone.
 */
export function createStreamBudget(options: BudgetOptions = {}): StreamBudget {
  const streamBytes = options.streamBytes ?? STREAM_HELD_BYTES;
  const totalBytes = options.totalBytes ?? PROCESS_HELD_BYTES;
  let held = 0;
  let streams = 0;
  const quiet = whenQuiet(options.onQuiet ?? collectGarbage);
  const settle = () => quiet.settle(held);
  const waiters = new Set<() => void>();
  // Streams ended while they still hold bytes: reset when the process needs the room.
  const cut = new Map<object, () => void>();
  const reclaim = () => {
    for (const [share, reset] of [...cut]) {
      cut.delete(share);
      reset();
    }
  };
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  return {
    get held() {
      return held;
    },
    get streams() {
      return streams;
    },
    open() {
      let own = 0;
      let open = true;
      streams++;
      const share: StreamShare = {
        get held() {
          return own;
        },
        take(bytes) {
          if (own > 0 && own + bytes > streamBytes) return 'wait';
          if (held > 0 && held + bytes > totalBytes) {
            reclaim();
            return own > totalBytes / Math.max(streams, 1) ? 'cut' : 'wait';
          }
          own += bytes;
          held += bytes;
          quiet.saw(held);
          return 'take';
        },
        release(bytes) {
          if (!open || bytes <= 0) return;
          const gone = Math.min(bytes, own);
          own -= gone;
          held -= gone;
          settle();
          wake();
        },
        released: (signal, ms) => nextRelease(waiters, signal, ms),
        cut(reset) {
          if (!open || own === 0) return;
          cut.set(share, reset);
          // Streams waiting for room look again: the first to find the process at its bound resets it.
          wake();
        },
        close() {
          if (!open) return;
          open = false;
          cut.delete(share);
          streams--;
          held -= own;
          own = 0;
          settle();
          wake();
        },
      };
      return share;
    },
  };
}
