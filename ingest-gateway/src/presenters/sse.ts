import type { WatchChange } from '../model.js';
import { presentDevice, presentEventType, presentObject } from './entities.js';
import { presentEvent } from './event.js';

/** What a keep-alive message of the registry (a message without changes) becomes: an SSE comment. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/** Frames kept for other readers of the same commits. */
const RECENT_FRAMES = 4096;

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

/**
 * sseFrame with recent frames kept by cursor, for catch-up streams: a cursor names one change, so
 * clients catching up on the same older commits (reconnecting together after a restart) share its
 * JSON instead of each rendering it. The shared feed keeps its own frames (watch-hub.ts).
 */
export function createFrameCache(): (change: WatchChange) => string {
  const recent = new Map<string, string>();
  return (change) => {
    const cached = recent.get(change.cursor);
    if (cached !== undefined) return cached;
    const frame = sseFrame(change);
    recent.set(change.cursor, frame);
    // A Map keeps insertion order: the oldest frame goes first.
    if (recent.size > RECENT_FRAMES) recent.delete(recent.keys().next().value as string);
    return frame;
  };
}
