/**
 * The coalescer's timings (what the write path's wait metrics are made of): how long each item
 * waited before its batch left, and how long each batch took to be answered.
 */
import { describe, expect, it } from 'vitest';
import { harness, items, settledWithin } from './coalescer-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createCoalescer: timings', () => {
  it('reports each item’s wait for a free slot and each batch’s time until it was answered', async () => {
    const waited: number[] = [];
    const ran: number[] = [];
    const h = harness({ maxInFlight: 1, timing: { waited: (ms) => waited.push(ms), ran: (ms) => ran.push(ms) } });
    const first = h.coalescer.submit(items('a', 1)[0]!);
    await settledWithin(Promise.resolve(), 2);
    // The only slot is busy: these two wait for it.
    const queued = items('b', 2).map((i) => h.coalescer.submit(i));
    await sleep(60);
    h.answer(0);
    await settledWithin(first, 5);
    await settledWithin(Promise.resolve(), 2);
    expect(h.batches.length).toBe(2);
    await sleep(30);
    h.answer(1);
    await Promise.all(queued);

    expect(waited).toHaveLength(3);
    // The lone item left at once; the queued ones waited for the first batch's answer.
    expect(waited[0]!).toBeLessThan(20);
    expect(Math.min(waited[1]!, waited[2]!)).toBeGreaterThanOrEqual(55);
    expect(ran).toHaveLength(2);
    expect(ran[0]!).toBeGreaterThanOrEqual(55);
    expect(ran[1]!).toBeGreaterThanOrEqual(25);
    expect(ran[1]!).toBeLessThan(ran[0]!);
  });

  it('reports a failed batch’s time too', async () => {
    const ran: number[] = [];
    const h = harness({ timing: { waited: () => {}, ran: (ms) => ran.push(ms) } });
    const failed = h.coalescer.submit(items('c', 1)[0]!);
    await settledWithin(Promise.resolve(), 2);
    await sleep(20);
    h.fail(0, new Error('down'));
    await expect(failed).rejects.toThrow('down');
    expect(ran).toHaveLength(1);
    expect(ran[0]!).toBeGreaterThanOrEqual(15);
  });
});
