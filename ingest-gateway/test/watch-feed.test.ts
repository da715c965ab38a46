/**
 * A feed's window of recent frames: what a resuming client is served from without a registry
 * stream of its own, across the bulk trims that keep it at RECENT_CHANGES to twice that, with
 * lookups (which build the index by cursor) before and after a trim.
 */
import { describe, expect, it } from 'vitest';
import { Feed, RECENT_CHANGES } from '../src/watch-feed.js';

const frame = (n: number) => `id: c${n}\n\n`;
const rememberRange = (feed: Feed, from: number, to: number) => {
  for (let n = from; n < to; n++) feed.remember(`c${n}`, frame(n));
};
const frames = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => frame(from + i)).join('');

describe('Feed: recent frames', () => {
  it('answers the frames after a cursor it holds, "" after the latest, undefined for one it never held', () => {
    const feed = new Feed();
    rememberRange(feed, 0, 10);
    expect(feed.framesAfter('c6')).toBe(frames(7, 10));
    expect(feed.framesAfter('c9')).toBe('');
    expect(feed.framesAfter('elsewhere')).toBeUndefined();
    // Changes remembered after a lookup are found too.
    rememberRange(feed, 10, 12);
    expect(feed.framesAfter('c9')).toBe(frames(10, 12));
  });

  it('keeps the latest changes across trims, looked up before and after each', () => {
    const feed = new Feed();
    rememberRange(feed, 0, RECENT_CHANGES + 100);
    expect(feed.framesAfter('c5')).toBe(frames(6, RECENT_CHANGES + 100));
    // Past twice the window, the oldest are dropped in bulk.
    const total = 2 * RECENT_CHANGES + 500;
    rememberRange(feed, RECENT_CHANGES + 100, total);
    expect(feed.framesAfter('c5')).toBeUndefined();
    expect(feed.framesAfter(`c${total - 3}`)).toBe(frames(total - 2, total));
    // The trim at 2 × RECENT_CHANGES kept the last RECENT_CHANGES of them.
    const oldestKept = RECENT_CHANGES;
    expect(feed.framesAfter(`c${oldestKept}`)).toBe(frames(oldestKept + 1, total));
    expect(feed.framesAfter(`c${oldestKept - 1}`)).toBeUndefined();
    // A second trim, with the index built in between.
    rememberRange(feed, total, total + 2 * RECENT_CHANGES);
    expect(feed.framesAfter(`c${total + 2 * RECENT_CHANGES - 2}`)).toBe(frame(total + 2 * RECENT_CHANGES - 1));
    expect(feed.framesAfter(`c${total - 3}`)).toBeUndefined();
  });
});
