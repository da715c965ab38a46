/**
 * SIGTERM under load for the gateway, run as a container runs it (`node ingest-gateway/dist/main.js`):
 * /readyz 503 first, every accepted request answered 200, keep-alive connections closed, exit 0; a
 * second signal forces exit 1. The shared steps are in ../support/shutdown-harness.ts.
 */
import { describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { freePort } from '../support/servers.js';
import { closedLoop, spawnService, waitFor } from '../support/service-process.js';
import { DRAIN_MS, expectCleanDrain, expectSecondSignalForces, sigtermUnderLoad, SHUTDOWN_TIMEOUT_MS, useShutdownBackends } from '../support/shutdown-harness.js';

const { startRegistry, startMedia } = useShutdownBackends('e2e-shutdown-gateway');

describe('ingest-gateway', () => {
  async function startGateway(drainMs = DRAIN_MS) {
    const [reg, med] = [await startRegistry(0), await startMedia(0)];
    const [port, metricsPort] = [await freePort(), await freePort()];
    const service = spawnService('ingest-gateway', {
      HOST: '127.0.0.1',
      PORT: String(port),
      REGISTRY_ADDR: reg.addr,
      MEDIA_ADDR: med.addr,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      DRAIN_DELAY_MS: String(drainMs),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor('gateway ready', () => fetch(`${base}/readyz`).then((r) => r.ok), 30_000, service);
    const stopBackends = async () => {
      reg.service.kill('SIGTERM');
      med.service.kill('SIGTERM');
      await Promise.all([reg.service.exited, med.service.exited]);
    };
    return { service, base, metrics: `http://127.0.0.1:${metricsPort}/metrics`, stopBackends };
  }

  const NOT_SENT = 'fetch failed: ECONNREFUSED (not sent)';

  it('drains on SIGTERM under load: /readyz 503 first, every accepted request answered 200, exit 0', async () => {
    const { service, base, metrics, stopBackends } = await startGateway();
    const url = `${base}/api/platform/dh/dynamic-events`;
    const body = JSON.stringify(exampleEvent({ device: 'drain-gateway' }));
    const load = closedLoop(
      async () => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch((err: unknown) => err as Error & { cause?: { code?: string } });
        // A refused connection: the request was never sent (a busy test process may send it late).
        if (res instanceof Error) return res.cause?.code === 'ECONNREFUSED' ? NOT_SENT : `threw ${res.message}`;
        await res.arrayBuffer();
        return res.status === 200 ? 'OK' : `HTTP ${res.status}`;
      },
      16,
      (outcome) => outcome.includes('fetch failed'),
    );
    const run = await sigtermUnderLoad(service, load, async () => {
      // Asked until the gateway noticed the signal (a busy machine delays it), within the drain.
      await expect.poll(async () => (await fetch(`${base}/readyz`)).status, { timeout: DRAIN_MS }).toBe(503);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ error: 'not ready: shutting down' });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(metrics)).status).toBe(200);
    });
    expectCleanDrain(run, (o) => o.includes('fetch failed'), service.output(), (o) => o === NOT_SENT);
    await stopBackends();
  });

  it('exits 1 at once on a second signal', async () => {
    const { service, stopBackends } = await startGateway(30_000);
    await expectSecondSignalForces(service);
    await stopBackends();
  });
});
