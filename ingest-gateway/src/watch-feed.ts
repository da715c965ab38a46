import type { ChunkQueue } from './chunk-queue.js';

/** Changes a feed keeps for clients that resume from one of them (or catch up to them). */
export const RECENT_CHANGES = 4096;

/**
 * One registry Watch (from now on) of one filter, shared by every SSE client of that filter, with
 * the frames of its recent changes in commit order, so a client resuming from one of them joins
 * without a registry stream of its own.
 */
export class Feed {
  readonly subscribers = new Set<ChunkQueue>();
  /** Clients that may still join: awaiting the first message, or catching up from an older cursor. */
  pending = 0;
  ended = false;
  ready: Promise<void> = Promise.resolve();
  readonly stop = new AbortController();
  /** Where the feed's registry stream stands: a resumed stream continues after it. */
  cursor = '';
  private recent: Array<{ cursor: string; frame: string }> = [];
  /** The number of recent[0] among every change this feed has seen. */
  private base = 0;
  /**
   * Numbers of recent[0 .. indexed) by cursor. Built when a client looks a cursor up (it resumes, or
   * its catch-up stream checks whether it reached the feed), not per change: a Map entry per change
   * cost the gateway more than rendering the change, for lookups most feeds never get.
   */
  private readonly numbers = new Map<string, number>();
  private indexed = 0;

  remember(cursor: string, frame: string): void {
    this.recent.push({ cursor, frame });
    if (this.recent.length < 2 * RECENT_CHANGES) return;
    // Trimmed in bulk: an Array shift per change would move the whole window each time.
    this.base += this.recent.length - RECENT_CHANGES;
    this.recent.splice(0, this.recent.length - RECENT_CHANGES);
    this.numbers.clear();
    this.indexed = 0;
  }

  /** The frames after `cursor` ('' when it is the latest), or undefined when it is not among the recent changes. */
  framesAfter(cursor: string): string | undefined {
    for (; this.indexed < this.recent.length; this.indexed++) this.numbers.set(this.recent[this.indexed]!.cursor, this.base + this.indexed);
    const n = this.numbers.get(cursor);
    if (n === undefined) return undefined;
    let text = '';
    for (let i = n - this.base + 1; i < this.recent.length; i++) text += this.recent[i]!.frame;
    return text;
  }
}
