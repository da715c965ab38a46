import { AppError } from '@dynamic-events/proto';
import { createLogger } from '@dynamic-events/proto/runtime';
import { describe, expect, it } from 'vitest';
import type { TokenClient } from '../src/clients/tokens.js';
import { createMetrics } from '../src/metrics.js';
import type { TokenState } from '../src/tokens/token-model.js';
import { createTokenSync } from '../src/tokens/token-sync.js';

const state = (version: string): TokenState => ({ version, requireToken: true, byHash: new Map() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

describe('token sync', () => {
  const logger = createLogger('test', 'silent');

  it('loads, keeps the state through "unchanged" answers and failures, and sends the version it holds', async () => {
    const { client, calls } = scriptedClient([state('3'), undefined, new AppError('UNAVAILABLE', 'down'), state('4'), undefined]);
    const sync = createTokenSync({ client, intervalMs: 100, logger, metrics: createMetrics() });
    expect(sync.current()).toBeUndefined();
    await sync.start();
    expect(sync.current()?.version).toBe('3');
    await sleep(250);
    expect(sync.current()?.version).toBe('3');
    await sleep(250);
    sync.stop();
    expect(sync.current()?.version).toBe('4');
    expect(calls.map((c) => c.knownVersion).slice(0, 4)).toEqual(['0', '3', '3', '3']);
  });

  it('reports a used token once a minute at most, and again after a failed report', async () => {
    const { client, calls } = scriptedClient([state('1'), new AppError('UNAVAILABLE', 'down'), undefined]);
    const sync = createTokenSync({ client, intervalMs: 100, logger, metrics: createMetrics() });
    await sync.start();
    sync.used('a');
    sync.used('a');
    sync.used('b');
    await sleep(350);
    sync.used('a');
    await sleep(150);
    sync.stop();
    const reported = calls.flatMap((c) => c.usedIds);
    // Sent with the failed call, then again with the next one; never a third time within the minute.
    expect(reported.filter((id) => id === 'a')).toHaveLength(2);
    expect(calls[1]?.usedIds).toEqual(['a', 'b']);
    expect(calls[2]?.usedIds).toEqual(['a', 'b']);
  });

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
