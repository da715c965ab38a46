/**
 * `docker stop` (SIGTERM to tini, forwarded to Node; SIGKILL after the chart's grace period) on each
 * service's container while requests are in flight, as a rolling update does to a pod: the process
 * exits 0 after the chart's drain delay and within drain plus shutdown timeout. With a second
 * replica left, as the chart runs them, stopping a registry or media replica costs no request at
 * all; stopping the gateway answers every request it accepted, and later callers are refused
 * (in a cluster they would reach another gateway pod), never answered with an error.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples } from '../support/images.js';
import { closedLoop, type CallResult } from '../support/service-process.js';
import { startContainerStack, type ContainerStack, type Replica } from './support/container-stack.js';

let stack: ContainerStack;
beforeAll(async () => {
  stack = await startContainerStack({ registries: 2, medias: 2 });
});
afterAll(async () => {
  await stack?.stop();
});

const refused = (outcome: string) => outcome.startsWith('threw fetch failed');
let n = 0;

/** POSTs an event (a new device each time, so the registry writes), optionally with an image; returns "OK" + id or what failed. */
async function post(withImage: boolean): Promise<string> {
  const body = exampleEvent({ device: `ct-stop-${process.pid}-${n++}` });
  if (withImage) (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = samples.jpeg.bytes.toString('base64');
  const res = await fetch(`${stack.api}/dynamic-events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return res.status === 200 ? `OK ${(JSON.parse(text) as { id: string }).id}` : `HTTP ${res.status} ${text}`;
}

/** Runs `post` in a closed loop, stops `replica` after half a second, and returns the timed stop and every result. */
async function stopUnderLoad(replica: Replica, withImage: boolean) {
  const load = closedLoop(() => post(withImage), 8, refused);
  await new Promise((r) => setTimeout(r, 500));
  const stoppedAt = performance.now();
  const stop = await replica.container.stop(stack.graceSeconds);
  // Keep sending a moment after the exit: the other replica must take everything.
  await new Promise((r) => setTimeout(r, 300));
  await load.stop();
  return { stop, stoppedAt, results: load.results };
}

function expectTimelyExit(stop: { exitCode: number; ms: number }, logs: string): void {
  expect(stop.exitCode, logs).toBe(0);
  expect(stop.ms).toBeGreaterThanOrEqual(stack.drainMs - 100);
  expect(stop.ms).toBeLessThan(stack.drainMs + stack.shutdownMs);
}

async function expectCommitted(results: CallResult[]): Promise<void> {
  const ids = results.filter((r) => r.outcome.startsWith('OK ')).map((r) => r.outcome.slice(3));
  const sql = new pg.Client({ connectionString: stack.databaseUrl });
  await sql.connect();
  const { rows } = await sql.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE id = ANY($1::uuid[])', [ids]);
  await sql.end();
  expect(Number(rows[0]!.n)).toBe(ids.length);
}

describe('docker stop under load', () => {
  it('a registry replica: exits 0 after draining, and the other replica answers every request', async () => {
    const replica = stack.registries[1]!;
    const { stop, results } = await stopUnderLoad(replica, false);
    expectTimelyExit(stop, await replica.container.logs());
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((r) => !r.outcome.startsWith('OK ')).map((r) => r.outcome), await stack.logs()).toEqual([]);
    await expectCommitted(results);
  });

  it('a media replica: exits 0 after draining, and every image request is answered 200', async () => {
    const replica = stack.medias[1]!;
    const { stop, results } = await stopUnderLoad(replica, true);
    expectTimelyExit(stop, await replica.container.logs());
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((r) => !r.outcome.startsWith('OK ')).map((r) => r.outcome), await stack.logs()).toEqual([]);
  });

  it('the gateway: every request accepted before its listener closed is answered 200, later ones refused, exit 0', async () => {
    const { stop, stoppedAt, results } = await stopUnderLoad(stack.gateway, false);
    expectTimelyExit(stop, await stack.gateway.container.logs());
    // A small margin: a request started right at the boundary may meet the closing listener.
    const closeAt = stoppedAt + stack.drainMs - 100;
    const before = results.filter((r) => r.startedAt < closeAt);
    expect(before.length).toBeGreaterThan(50);
    expect(before.filter((r) => !r.outcome.startsWith('OK ')).map((r) => r.outcome)).toEqual([]);
    expect(results.filter((r) => r.startedAt >= closeAt && !r.outcome.startsWith('OK ') && !refused(r.outcome)).map((r) => r.outcome)).toEqual([]);
    await expectCommitted(results);
  });

  it('the last registry and media replicas exit 0 within drain plus shutdown timeout', async () => {
    const stops = await Promise.all([stack.registries[0]!, stack.medias[0]!].map((r) => r.container.stop(stack.graceSeconds)));
    for (const stop of stops) expectTimelyExit(stop, await stack.logs());
  });
});
