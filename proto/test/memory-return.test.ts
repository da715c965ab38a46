/**
 * After a burst of open streams (a flood refused beyond its caps, a storm of resumes) the process is
 * idle and V8 collects nothing: the streams' garbage is collected once their count falls back to a
 * quarter of a peak of at least the threshold, after a quiet delay, and not while they rise again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectAfterBursts } from '../src/runtime/memory-return.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('collectAfterBursts', () => {
  it('collects once, after the delay, when the count falls from a large peak', () => {
    const collect = vi.fn();
    const count = collectAfterBursts(100, 1000, collect);
    for (let n = 1; n <= 400; n++) count(n);
    for (let n = 399; n > 100; n--) count(n);
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
    count(100);
    vi.advanceTimersByTime(999);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    for (let n = 99; n >= 0; n--) count(n);
    vi.advanceTimersByTime(5000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('does nothing for small peaks, and waits while the count rises again', () => {
    const collect = vi.fn();
    const count = collectAfterBursts(100, 1000, collect);
    for (let n = 1; n <= 99; n++) count(n);
    count(0);
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
    for (let n = 100; n <= 200; n++) count(n);
    count(10);
    vi.advanceTimersByTime(500);
    count(300);
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
  });
});
