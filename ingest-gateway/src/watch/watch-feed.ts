import { createLimiter } from '@dynamic-events/proto/runtime';
import type { ChunkQueue } from './chunk-queue.js';
import { frameEnds } from '../api/sse.js';

/** Changes a feed keeps for clients that resume from one of them (or catch up to them). */
export const RECENT_CHANGES = 4096;
/** The bytes of those changes' chunks at most (events may be 16 MiB each): the newest message stays whatever its size. */
const RECENT_BYTES = 16 * 1024 * 1024;

/**
 * One registry Watch (from now on) of one filter, shared by every SSE client of that filter, with
 * the chunks of its recent messages in commit order, so a client resuming from one of their
 * changes joins without a registry stream of its own.
 *
 * The feed keeps the chunks its clients were sent (one Buffer per message, the same bytes), not a
 * string and an entry per change: kept for thousands of changes, those outlive the young
 * generation and are promoted and collected by major GCs (bench `watch` scenario, ten watchers at
 * 3,000 events/s: the gateway's GC pause per watched change is 4-6 µs with chunks, 6-9 with an
 * entry per change). Cursors are read back from the chunks when a client looks one up.
 */
export class Feed {
  readonly subscribers = new Set<ChunkQueue>();
  /** Clients that may still join: awaiting the first message, or catching up from an older cursor. */
  readonly pending = createLimiter();
  ended = false;
  ready: Promise<void> = Promise.resolve();
  readonly stop = new AbortController();
  /** Where the feed's registry stream stands: a resumed stream continues after it. */
  cursor = '';
  /** Recent messages' chunks, oldest first, and how many changes each holds. */
  private chunks: Buffer[] = [];
  private counts: number[] = [];
  /** Changes in `chunks`, and their bytes. */
  private held = 0;
  private bytes = 0;
  /** The number of chunks[0] among every chunk this feed has kept. */
  private base = 0;
  /**
   * Where the frame of each cursor in chunks[0 .. indexed) ends: [chunk number, offset after it].
   * Built when a client looks a cursor up (it resumes, or its catch-up stream checks whether it
   * reached the feed), not per change: most feeds never get a lookup.
   */
  private readonly ends = new Map<string, [number, number]>();
  private indexed = 0;

  /** Keeps a message's chunk (`changes` frames of sseFrame text). */
  remember(chunk: Buffer, changes: number): void {
    this.chunks.push(chunk);
    this.counts.push(changes);
    this.held += changes;
    this.bytes += chunk.length;
    if (this.held < 2 * RECENT_CHANGES && this.bytes <= RECENT_BYTES) return;
    // Trimmed in bulk, to the fewest chunks that still hold RECENT_CHANGES, and to half the bytes
    // bound: a shift per message would move the whole window each time.
    let drop = 0;
    while (drop < this.chunks.length - 1 && (this.held - this.counts[drop]! >= RECENT_CHANGES || this.bytes > RECENT_BYTES / 2)) {
      this.held -= this.counts[drop]!;
      this.bytes -= this.chunks[drop++]!.length;
    }
    this.chunks.splice(0, drop);
    this.counts.splice(0, drop);
    this.base += drop;
    this.ends.clear();
    this.indexed = 0;
  }

  /** The frames after `cursor` (empty when it is the latest), or undefined when it is not among the recent changes. */
  framesAfter(cursor: string): Buffer | undefined {
    for (; this.indexed < this.chunks.length; this.indexed++) {
      for (const [frameCursor, end] of frameEnds(this.chunks[this.indexed]!)) this.ends.set(frameCursor, [this.base + this.indexed, end]);
    }
    const at = this.ends.get(cursor);
    if (at === undefined) return undefined;
    const i = at[0] - this.base;
    return Buffer.concat([this.chunks[i]!.subarray(at[1]), ...this.chunks.slice(i + 1)]);
  }
}
