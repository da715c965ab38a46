import { AppError } from '@dynamic-events/proto';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TokenClient } from '../src/clients/tokens.js';
import { createMetrics } from '../src/metrics.js';
import type { TokenState } from '../src/tokens/token-model.js';
import { createTokenSync, USE_REPORT_INTERVAL_MS } from '../src/tokens/token-sync.js';

const state = (version: string): TokenState => ({ version, requireToken: true, byHash: new Map() });
const INTERVAL_MS = 100;

/** A sync-only client answering from a script of outcomes (the last one repeats). */
function scriptedClient(outcomes: Array<TokenState | undefined | Error>) {
  const calls: Array<{ knownVersion: string; usedIds: string[] }> = [];
  const client = {
    async sync(knownVersion: string, usedIds: string[]) {
      calls.push({ knownVersion, usedIds });
      const outcome = outcomes.length > 1 ? outcomes.shift() : outcomes[0];
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  } as unknown as TokenClient;
  return { client, calls };
}

// Fake timers: each sync runs on a tick the test advances, so which sync has run never depends on
// how busy the machine is.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs the next interval's sync to its end. */
const tick = () => vi.advanceTimersByTimeAsync(INTERVAL_MS);

const logger = createLogger('test', 'silent');

describe('token sync', () => {
  it('loads, keeps the state through "unchanged" answers and failures, and sends the version it holds', async () => {
    const { client, calls } = scriptedClient([state('3'), undefined, new AppError('UNAVAILABLE', 'down'), state('4'), undefined]);
    const sync = createTokenSync({ client, intervalMs: INTERVAL_MS, logger, metrics: createMetrics() });
    expect(sync.current()).toBeUndefined();
    await sync.start();
    expect(sync.current()?.version).toBe('3');
    expect(calls).toHaveLength(1);
    await tick(); // "unchanged"
    expect(calls).toHaveLength(2);
    expect(sync.current()?.version).toBe('3');
    await tick(); // failed: the last state stays in force
    expect(calls).toHaveLength(3);
    expect(sync.current()?.version).toBe('3');
    await tick(); // changed
    expect(sync.current()?.version).toBe('4');
    await tick();
    sync.stop();
    expect(sync.current()?.version).toBe('4');
    expect(calls.map((c) => c.knownVersion)).toEqual(['0', '3', '3', '3', '4']);
    // Stopped: no further sync.
    await tick();
    expect(calls).toHaveLength(5);
  });

  it('reports a used token once a minute at most, and again after a failed report', async () => {
    const { client, calls } = scriptedClient([state('1'), new AppError('UNAVAILABLE', 'down'), undefined]);
    const sync = createTokenSync({ client, intervalMs: INTERVAL_MS, logger, metrics: createMetrics() });
    await sync.start();
    sync.used('a');
    sync.used('a');
    sync.used('b');
    await tick(); // fails: the uses go again with the next call
    await tick();
    sync.used('a');
    await tick();
    const reported = () => calls.flatMap((c) => c.usedIds);
    // Sent with the failed call, then again with the next one; never a third time within the minute.
    expect(reported().filter((id) => id === 'a')).toHaveLength(2);
    expect(calls[1]?.usedIds).toEqual(['a', 'b']);
    expect(calls[2]?.usedIds).toEqual(['a', 'b']);
    expect(calls[3]?.usedIds).toEqual([]);
    // A minute after it was first noted, a use is reported again.
    await vi.advanceTimersByTimeAsync(USE_REPORT_INTERVAL_MS);
    sync.used('a');
    await tick();
    sync.stop();
    expect(reported().filter((id) => id === 'a')).toHaveLength(3);
    expect(calls.at(-1)?.usedIds).toEqual(['a']);
  });
});

describe('token sync refresh', () => {
  it('refresh() applies a change at once, told to listeners, without waiting for the interval', async () => {
    const { client, calls } = scriptedClient([state('1'), state('2'), undefined]);
    const sync = createTokenSync({ client, intervalMs: 60_000, logger, metrics: createMetrics() });
    await sync.start();
    const seen: string[] = [];
    const off = sync.onChange((next) => seen.push(next.version));
    await sync.refresh();
    expect(sync.current()?.version).toBe('2');
    expect(seen).toEqual(['2']);
    // "Unchanged" tells nobody; a listener removed hears nothing more.
    await sync.refresh();
    off();
    sync.stop();
    expect(seen).toEqual(['2']);
    expect(calls.map((c) => c.knownVersion)).toEqual(['0', '1', '2']);
  });

  it('refresh() during a sync in flight runs one more sync after it: its answer postdates the call', async () => {
    let release = () => {};
    const versions: string[] = [];
    const client = {
      async sync(knownVersion: string) {
        versions.push(knownVersion);
        // The first call hangs until released: the refreshes meanwhile wait for it, then share one more.
        if (versions.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return state(String(versions.length));
      },
    } as unknown as TokenClient;
    const sync = createTokenSync({ client, intervalMs: 60_000, logger, metrics: createMetrics() });
    const started = sync.start();
    const refreshed = [sync.refresh(), sync.refresh()];
    expect(versions).toEqual(['0']);
    release();
    await Promise.all([started, ...refreshed]);
    sync.stop();
    expect(versions).toEqual(['0', '1']);
    expect(sync.current()?.version).toBe('2');
  });
});
