/**
 * The wait of a response for its body stream to drain (until-drained.ts) ends at its limit,
 * when its client leaves, or when the stream is destroyed, whatever the garbage collector did in
 * between: a wait that outlived its limit would keep its response, its chunk and its catch-up
 * stream for as long as the client stays connected.
 */
import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { untilDrained } from '../src/runtime/until-drained.js';

/** A full collection (the test process is not started with --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A body stream nobody reads, already past its high-water mark. */
function fullStream(): PassThrough {
  const out = new PassThrough({ highWaterMark: 16 });
  expect(out.write(Buffer.alloc(64))).toBe(false);
  return out;
}

describe('untilDrained', () => {
  it('answers stalled at its limit, even after a full collection while it waits', async () => {
    const out = fullStream();
    const started = Date.now();
    const wait = untilDrained(out, new AbortController().signal, 300);
    await new Promise((resolve) => setTimeout(resolve, 50));
    collectGarbage();
    const verdict = await Promise.race([wait, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000))]);
    expect(verdict).toBe('stalled');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('answers drained once the stream is read', async () => {
    const out = fullStream();
    const wait = untilDrained(out, new AbortController().signal, 10_000);
    out.resume();
    await expect(wait).resolves.toBe('drained');
  });

  it('answers gone when the client leaves or the stream is destroyed, at once when it already happened', async () => {
    const left = new AbortController();
    const waitLeft = untilDrained(fullStream(), left.signal, 10_000);
    left.abort();
    await expect(waitLeft).resolves.toBe('gone');
    const destroyed = fullStream();
    const waitDestroyed = untilDrained(destroyed, new AbortController().signal, 10_000);
    destroyed.destroy();
    await expect(waitDestroyed).resolves.toBe('gone');
    await expect(untilDrained(destroyed, new AbortController().signal, 10_000)).resolves.toBe('gone');
    await expect(untilDrained(fullStream(), left.signal, 10_000)).resolves.toBe('gone');
  });
});
