/**
 * PostgreSQL killed under load and started again, end to end, on a private cluster (the machine's
 * shared server serves other tests and is never killed): SIGKILL to the postmaster and every
 * backend, either on the same host (the registry's connections are closed by the kernel) or with
 * the host vanishing meanwhile (its connections stay open and silent, as after a power loss or a
 * network cut). While it is gone requests get 503, never a 500, and /readyz 503; once it is back
 * /readyz says ready within a generous bound, and the next request succeeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { tempDir } from '../support/servers.js';
import { postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

afterAll(stopAllStacks);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Concurrent request loops of the steady load. */
const LOOPS = 6;
/** Readiness itself may take its time; only what follows it is held to "the next request succeeds". */
const READY_WITHIN_MS = 30_000;

/** Polls /readyz until it answers `status`. */
async function readyzTurns(stack: Stack, status: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < READY_WITHIN_MS) {
    const res = await fetch(`${stack.baseUrl}/readyz`).catch(() => undefined);
    if (res?.status === status) return;
    await sleep(50);
  }
  throw new Error(`/readyz did not answer ${status} within ${READY_WITHIN_MS} ms`);
}

describe('PostgreSQL killed and restarted under load', () => {
  let postgres: PrivatePostgres;
  let proxy: TcpProxy;
  let stack: Stack;
  let dir: ReturnType<typeof tempDir>;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const target = new URL(postgres.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    target.port = String(proxy.port);
    dir = tempDir('e2e-crash');
    stack = await startStack({ dataDir: dir.path, env: { DATABASE_URL: target.toString() } });
  });

  afterAll(async () => {
    await stack?.stop('SIGTERM');
    await proxy?.stop();
    await postgres?.remove();
    dir?.remove();
  });

  /**
   * Steady load (first sightings and known entities) while `fault` takes the database away and
   * `recover` brings it back; then /readyz is polled and one request sent. Answers every status seen.
   */
  async function outage(fault: () => Promise<void>, recover: () => Promise<void>) {
    const statuses: number[] = [];
    let running = true;
    let n = 0;
    const loop = async () => {
      while (running) {
        const i = n++;
        const res = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: `crash-${i % 40}`, objectId: `ch-${i}` })).catch(() => ({ status: 0 }));
        statuses.push(res.status);
        if (res.status !== 200) await sleep(20);
      }
    };
    const loops = Array.from({ length: LOOPS }, loop);
    await sleep(1000);
    await fault();
    await readyzTurns(stack, 503);
    await sleep(2000);
    await recover();
    await readyzTurns(stack, 200);
    const next = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: `crash-next-${n}` }));
    running = false;
    await Promise.all(loops);
    return { statuses, next: next.status };
  }

  it('on its own host: 503 while it is gone, and the next request after /readyz says ready succeeds', async () => {
    const seen = await outage(() => postgres.kill(), () => postgres.start());
    expect(seen.next).toBe(200);
    expect(seen.statuses).toContain(503);
    expect(seen.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  });

  it('with its host vanishing (connections left open and silent): the same, no pooled connection keeps the outage alive', async () => {
    const seen = await outage(
      async () => {
        await proxy.vanish();
        await postgres.kill();
      },
      async () => {
        await postgres.start();
        await proxy.start();
      },
    );
    expect(seen.next).toBe(200);
    expect(seen.statuses).toContain(503);
    expect(seen.statuses.filter((s) => s !== 200 && s !== 503 && s !== 504)).toEqual([]);
  });
});
