import type { WatchChange } from '../model.js';
import { presentDevice, presentEventType, presentObject } from './entities.js';
import { presentEvent } from './event.js';

/** What a keep-alive message of the registry (a message without changes) becomes: an SSE comment. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/**
 * The last frame of a stream whose access ended (`reason`: "token revoked", "token expired", "token
 * required"). It has no id, so Last-Event-ID still names the last change: a client reconnecting
 * with a valid token resumes without a gap.
 */
export function unauthorizedFrame(reason: string): string {
  return `event: unauthorized\ndata: ${JSON.stringify({ error: reason })}\n\n`;
}

/** Frames kept for other readers of the same commits, and their text at most (events may be 16 MiB each). */
const RECENT_FRAMES = 4096;
const RECENT_FRAME_CHARS = 8 * 1024 * 1024;

/** One Server-Sent Events frame for a change. */
export function sseFrame(change: WatchChange): string {
  const data =
    change.kind === 'event.created'
      ? presentEvent(change.event)
      : change.kind === 'device.created'
        ? presentDevice(change.device)
        : change.kind === 'object.created'
          ? presentObject(change.object)
          : presentEventType(change.eventType);
  // JSON.stringify escapes line breaks, so the data stays on one line.
  return `id: ${change.cursor}\nevent: ${change.kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

const ID_LINE = Buffer.from('id: ');
const FRAME_END = Buffer.from('\n\n');

/**
 * The frames of a chunk of sseFrame text, each as its cursor and the offset just after it: what a
 * feed that keeps only its chunks needs to serve a client resuming after one of them. Every frame
 * starts with its id line and ends at the first blank line (JSON.stringify keeps line breaks out
 * of data); anything else (a comment) is skipped.
 */
export function* frameEnds(chunk: Buffer): Generator<[cursor: string, end: number]> {
  for (let at = 0; at < chunk.length; ) {
    const blank = chunk.indexOf(FRAME_END, at);
    if (blank === -1) return;
    if (chunk.subarray(at, at + ID_LINE.length).equals(ID_LINE)) {
      yield [chunk.toString('utf8', at + ID_LINE.length, chunk.indexOf(10, at)), blank + FRAME_END.length];
    }
    at = blank + FRAME_END.length;
  }
}

/** sseFrame with recent frames kept by cursor (createFrameCache). */
interface FrameCache {
  frame(change: WatchChange): string;
  /** Frames kept now. */
  readonly size: number;
  /** Lets every kept frame go. */
  clear(): void;
}

/**
 * sseFrame with recent frames kept by cursor, for catch-up streams: a cursor names one change, so
 * clients catching up on the same older commits (reconnecting together after a restart) share its
 * JSON instead of each rendering it. The shared feed keeps its messages' chunks instead (watch-feed.ts).
 */
export function createFrameCache(): FrameCache {
  const recent = new Map<string, string>();
  let chars = 0;
  return {
    get size() {
      return recent.size;
    },
    clear() {
      recent.clear();
      chars = 0;
    },
    frame(change) {
      const cached = recent.get(change.cursor);
      if (cached !== undefined) return cached;
      const frame = sseFrame(change);
      recent.set(change.cursor, frame);
      chars += frame.length;
      // A Map keeps insertion order: the oldest frames go first (the newest one too when it alone is over the bound).
      for (const [cursor, old] of recent) {
        if (recent.size <= RECENT_FRAMES && chars <= RECENT_FRAME_CHARS) break;
        recent.delete(cursor);
        chars -= old.length;
      }
      return frame;
    },
  };
}
