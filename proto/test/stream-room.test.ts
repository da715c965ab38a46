/**
 * The take / wait / cut protocol of a server stream over its budget (stream-room.ts), the one both
 * gRPC server streams and the gateway's SSE responses use: a message waits for room until a
 * release, its caller leaving, or its stall limit; a stream beyond its share is cut; a stream that
 * ended holding bytes stays counted until its client took them, and is reset when another needs
 * the room or after its grace, by a timer of its own.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createStreamBudget } from '../src/runtime/stream-budget.js';
import { holdUntilTaken, roomFor } from '../src/runtime/stream-room.js';

const MiB = 1024 * 1024;
const never = new AbortController().signal;

/** A full collection (the test process is not started with --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A stream end whose close the test calls. */
function streamEnd() {
  let resets = 0;
  let listener: (() => void) | undefined;
  return {
    end: { reset: () => void resets++, onClose: (l: () => void) => void (listener = l) },
    resets: () => resets,
    close: () => listener?.(),
  };
}

describe('room for a message', () => {
  it('takes at once when it fits, and after a release when it waits', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    const holder = budget.open();
    const share = budget.open();
    expect(await roomFor(holder, 4 * MiB, { signal: never })).toBe('take');
    const room = roomFor(share, 1 * MiB, { signal: never, maxWaitMs: 60_000 });
    holder.release(4 * MiB);
    expect(await room).toBe('take');
    expect(share.held).toBe(1 * MiB);
  });

  it('cuts a stream beyond its share once the process is at its bound', async () => {
    const budget = createStreamBudget({ streamBytes: 16 * MiB, totalBytes: 16 * MiB });
    const [big, small] = [budget.open(), budget.open()];
    big.take(12 * MiB);
    small.take(2 * MiB);
    expect(await roomFor(big, 4 * MiB, { signal: never })).toBe('cut');
  });

  it('answers stalled at its limit, even after a full collection while it waits', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    budget.open().take(4 * MiB);
    const share = budget.open();
    const started = Date.now();
    const room = roomFor(share, 1 * MiB, { signal: never, maxWaitMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    collectGarbage();
    expect(await Promise.race([room, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000))])).toBe('stalled');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('answers gone when its caller left, before or while it waits, also when room came in the same turn', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    const holder = budget.open();
    holder.take(4 * MiB);
    const left = new AbortController();
    left.abort();
    expect(await roomFor(budget.open(), 1, { signal: left.signal })).toBe('gone');
    const leaving = new AbortController();
    const share = budget.open();
    const room = roomFor(share, 1 * MiB, { signal: leaving.signal });
    holder.close();
    leaving.abort();
    expect(await room).toBe('gone');
    expect(share.held).toBe(0);
  });

  it('brings the share up to date before each look; a caller holding its message ends rather than wait holding more than it counts', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    const other = budget.open();
    other.take(3 * MiB);
    const share = budget.open();
    share.take(1 * MiB);
    let looks = 0;
    const refresh = () => void looks++;
    expect(await roomFor(share, 2 * MiB, { signal: never, refresh, holdsMessage: true })).toBe('cut');
    expect(looks).toBe(1);
    // What its client took is released by the refresh: then it fits.
    expect(await roomFor(share, 1 * MiB, { signal: never, refresh: () => other.release(3 * MiB) })).toBe('take');
  });
});

describe('a stream that ended holding bytes', () => {
  it('closes its share at once when it holds nothing or its stream is gone', () => {
    const budget = createStreamBudget();
    holdUntilTaken(budget.open(), streamEnd().end, 10_000);
    const held = budget.open();
    held.take(1024);
    holdUntilTaken(held, undefined, 10_000);
    expect([budget.streams, budget.held]).toEqual([0, 0]);
  });

  it('stays counted until its stream closes, reset when another stream needs the room', () => {
    const budget = createStreamBudget({ streamBytes: 8 * MiB, totalBytes: 8 * MiB });
    const ended = budget.open();
    ended.take(6 * MiB);
    const stream = streamEnd();
    holdUntilTaken(ended, stream.end, 60_000);
    expect(budget.held).toBe(6 * MiB);
    expect(budget.open().take(4 * MiB)).toBe('wait');
    expect(stream.resets()).toBe(1);
    stream.close();
    expect(budget.held).toBe(0);
  });

  it('is reset after its grace by a timer of its own, which its close clears', async () => {
    const budget = createStreamBudget();
    const [late, closed] = [budget.open(), budget.open()];
    late.take(1024);
    closed.take(1024);
    const [lateEnd, closedEnd] = [streamEnd(), streamEnd()];
    holdUntilTaken(late, lateEnd.end, 100);
    holdUntilTaken(closed, closedEnd.end, 100);
    closedEnd.close();
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([lateEnd.resets(), closedEnd.resets()]).toEqual([1, 0]);
    expect(budget.streams).toBe(1);
  });
});
