/**
 * A feed's window of recent messages: what a resuming client is served from without a registry
 * stream of its own, across the bulk trims that keep it at RECENT_CHANGES to twice that (plus a
 * message), with lookups (which build the index by cursor) before and after a trim, and cursors
 * at the start, middle and end of a message's chunk.
 */
import { describe, expect, it } from 'vitest';
import { frameEnds } from '../src/api/sse.js';
import { Feed, RECENT_CHANGES } from '../src/watch/watch-feed.js';

const frame = (n: number) => `id: c${n}\nevent: event.created\ndata: {"n":${n},"text":"a\\n\\nb"}\n\n`;
const frames = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => frame(from + i)).join('');

/** Remembers changes [from, to) in messages of 1 to 7 changes (sizes cycle), as the hub does. */
function rememberRange(feed: Feed, from: number, to: number): void {
  for (let n = from, size = 1; n < to; n += size, size = (size % 7) + 1) {
    const count = Math.min(size, to - n);
    feed.remember(Buffer.from(frames(n, n + count)), count);
  }
}

const after = (feed: Feed, cursor: string) => feed.framesAfter(cursor)?.toString();

describe('Feed: recent messages', () => {
  it('answers the frames after a cursor it holds, "" after the latest, undefined for one it never held', () => {
    const feed = new Feed();
    rememberRange(feed, 0, 30);
    for (let n = 0; n < 30; n++) expect(after(feed, `c${n}`)).toBe(frames(n + 1, 30));
    expect(after(feed, 'elsewhere')).toBeUndefined();
    // A cursor that is only a prefix of one held is not held.
    expect(after(feed, 'c2')).toBe(frames(3, 30));
    expect(after(feed, 'c')).toBeUndefined();
    // Changes remembered after a lookup are found too.
    rememberRange(feed, 30, 32);
    expect(after(feed, 'c29')).toBe(frames(30, 32));
  });

  it('keeps at least the latest RECENT_CHANGES changes across trims, looked up before and after each', () => {
    const feed = new Feed();
    rememberRange(feed, 0, RECENT_CHANGES + 100);
    expect(after(feed, 'c5')).toBe(frames(6, RECENT_CHANGES + 100));
    // Past twice the window, the oldest are dropped in bulk.
    const total = 2 * RECENT_CHANGES + 500;
    rememberRange(feed, RECENT_CHANGES + 100, total);
    expect(after(feed, 'c5')).toBeUndefined();
    expect(after(feed, `c${total - 3}`)).toBe(frames(total - 2, total));
    const oldest = oldestHeld(feed, total);
    // Whole messages that hold at least RECENT_CHANGES, and fewer than twice that.
    expect(total - oldest).toBeGreaterThanOrEqual(RECENT_CHANGES);
    expect(total - oldest).toBeLessThan(2 * RECENT_CHANGES);
    expect(after(feed, `c${oldest}`)).toBe(frames(oldest + 1, total));
    // A second trim, with the index built in between.
    const end = total + 2 * RECENT_CHANGES;
    rememberRange(feed, total, end);
    expect(after(feed, `c${end - 2}`)).toBe(frame(end - 1));
    expect(after(feed, `c${total - 3}`)).toBeUndefined();
    expect(end - oldestHeld(feed, end)).toBeGreaterThanOrEqual(RECENT_CHANGES);
    expect(end - oldestHeld(feed, end)).toBeLessThan(2 * RECENT_CHANGES);
  });
});

/** The oldest change the feed still holds, of those before `end`. */
function oldestHeld(feed: Feed, end: number): number {
  let n = end - 1;
  while (n > 0 && feed.framesAfter(`c${n - 1}`) !== undefined) n--;
  return n;
}

describe('frameEnds', () => {
  it('gives each frame\'s cursor and where it ends, skipping comments', () => {
    const chunk = Buffer.from(`${frame(1)}: keep-alive\n\n${frame(2)}`);
    expect([...frameEnds(chunk)]).toEqual([
      ['c1', frame(1).length],
      ['c2', chunk.length],
    ]);
  });
});
