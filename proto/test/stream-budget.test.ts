/**
 * The byte accounting of server streams (stream-budget.ts): per stream and per process, a single
 * large message alone, the cut of a stream beyond its share, and the reset of cut streams when
 * another needs the room.
 */
import { describe, expect, it } from 'vitest';
import { createStreamBudget } from '../src/runtime/stream-budget.js';

const MiB = 1024 * 1024;

describe('stream budget', () => {
  it('counts each message by its bytes until released, per stream and in total', () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 64 * MiB });
    const a = budget.open();
    const b = budget.open();
    expect(a.take(3 * MiB)).toBe('take');
    expect(b.take(1 * MiB)).toBe('take');
    expect([a.held, b.held, budget.held]).toEqual([3 * MiB, 1 * MiB, 4 * MiB]);
    a.release(2 * MiB);
    expect([a.held, budget.held]).toEqual([1 * MiB, 2 * MiB]);
    b.close();
    expect([budget.held, budget.streams]).toEqual([1 * MiB, 1]);
    a.close();
    expect([budget.held, budget.streams]).toEqual([0, 0]);
  });

  it('makes a stream wait while its client has yet to take what it holds, and lets a large message go alone', () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 64 * MiB });
    const share = budget.open();
    expect(share.take(16 * MiB)).toBe('take');
    expect(share.take(1024)).toBe('wait');
    share.release(16 * MiB);
    expect(share.take(1024)).toBe('take');
  });

  it('cuts a stream beyond its even share once the process is at its bound; one within it waits', () => {
    const budget = createStreamBudget({ streamBytes: 16 * MiB, totalBytes: 16 * MiB });
    const streams = Array.from({ length: 4 }, () => budget.open());
    expect(streams[0]!.take(6 * MiB)).toBe('take');
    expect(streams[1]!.take(6 * MiB)).toBe('take');
    expect(streams[2]!.take(2 * MiB)).toBe('take');
    // 14 MiB held: 3 MiB more passes the bound. Even share: 16 / 4 = 4 MiB.
    expect(streams[0]!.take(3 * MiB)).toBe('cut');
    expect(streams[2]!.take(3 * MiB)).toBe('wait');
    expect(streams[3]!.take(4 * MiB)).toBe('wait');
    expect(budget.held).toBe(14 * MiB);
  });

  it('wakes waiters at a release, and resolves false when none comes in time', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    const holder = budget.open();
    const waiter = budget.open();
    holder.take(4 * MiB);
    expect(waiter.take(1 * MiB)).toBe('wait');
    const woken = waiter.released(new AbortController().signal, 60_000);
    holder.release(4 * MiB);
    expect(await woken).toBe(true);
    expect(waiter.take(1 * MiB)).toBe('take');
    expect(await waiter.released(new AbortController().signal, 1)).toBe(false);
  });

  it('resets the streams that were cut (still holding bytes) when another needs the room', () => {
    const budget = createStreamBudget({ streamBytes: 8 * MiB, totalBytes: 8 * MiB });
    const cut = budget.open();
    cut.take(6 * MiB);
    let resets = 0;
    cut.cut(() => {
      resets++;
      cut.close();
    });
    const next = budget.open();
    expect(next.take(4 * MiB)).toBe('wait');
    expect(resets).toBe(1);
    expect(budget.held).toBe(0);
    expect(next.take(4 * MiB)).toBe('take');
  });
});

describe('a stream waiting for room', () => {
  it('answers a release after the turn, and false to a waiter whose client left in that turn', async () => {
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 4 * MiB });
    const holder = budget.open();
    const waiter = budget.open();
    holder.take(4 * MiB);
    const leaving = new AbortController();
    const woken = waiter.released(leaving.signal, 60_000);
    // Clients closing together: the holder's stream ends first, the waiter's client is gone right after.
    holder.close();
    leaving.abort();
    expect(await woken).toBe(false);
    expect(budget.held).toBe(0);
  });
});
