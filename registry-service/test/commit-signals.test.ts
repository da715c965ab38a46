/**
 * The LISTEN session (commit-signals.ts) is given back to the pool once, however many errors its
 * connection reports: the server terminating it and the socket closing are two 'error' events, and
 * pg-pool throws at a second release (an uncaught exception in the registry).
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { CommitHorizon } from '../src/watch/commit-horizon.js';
import { createCommitSignals } from '../src/watch/commit-signals.js';
import { silent } from './helpers.js';

/** A pooled client as pg-pool hands it out: a second release throws, as pg-pool's does. */
function fakeClient() {
  const client = Object.assign(new EventEmitter(), {
    releases: 0,
    query: async () => ({ rows: [] }),
    release() {
      if (++client.releases > 1) throw new Error('Release called on client which has already been released to the pool.');
    },
  });
  return client;
}

function fakePool() {
  const clients: Array<ReturnType<typeof fakeClient>> = [];
  const pool = {
    connect: async () => {
      const client = fakeClient();
      clients.push(client);
      return client;
    },
    query: async () => ({ rows: [] }),
  };
  return { pool: pool as unknown as pg.Pool, clients };
}

const horizon = { nudge: () => undefined } as unknown as CommitHorizon;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the LISTEN session', () => {
  it('is released once when its connection reports errors after close()', async () => {
    const { pool, clients } = fakePool();
    const signals = createCommitSignals({ pool, horizon, logger: silent });
    signals.listen();
    await settle();
    await signals.close();
    const [session] = clients;
    expect(session!.releases).toBe(1);
    // A dropped database: the server's termination notice, then the socket closing.
    expect(() => session!.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow();
    expect(() => session!.emit('error', new Error('Connection terminated unexpectedly'))).not.toThrow();
    expect(session!.releases).toBe(1);
    await settle();
    expect(clients).toHaveLength(1);
  });

  it('is released once, and listening starts again once, when its connection reports two errors', async () => {
    const { pool, clients } = fakePool();
    const signals = createCommitSignals({ pool, horizon, logger: silent });
    signals.listen();
    await settle();
    const [session] = clients;
    session!.emit('error', new Error('terminating connection due to administrator command'));
    expect(() => session!.emit('error', new Error('Connection terminated unexpectedly'))).not.toThrow();
    expect(session!.releases).toBe(1);
    // RELISTEN_MS later, one new session.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(clients).toHaveLength(2);
    await signals.close();
  });
});
