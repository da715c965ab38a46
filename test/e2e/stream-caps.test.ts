/**
 * The caps on open event streams on the real stack (as `npm start` runs it, on PostgreSQL): one
 * client opening 3,000 streams, each of another domain (a registry stream of its own), gets
 * MAX_STREAMS_PER_CLIENT of them and 429 for the rest; 3,000 more from 30 addresses fill the
 * gateway's MAX_STREAMS and get 503 beyond; meanwhile no process passes its chart memory limit
 * (gateway 512 MiB, registry 256 MiB), and once they close the places come back and the live heap
 * returns near its start.
 * The figures are printed; ingest-gateway/README.md ("Stream caps") keeps a run of them.
 */
import { request, type ClientRequest } from 'node:http';
import { pollUntil } from '@dynamic-events/proto/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { useStackOnFreshDatabase } from '../support/fresh-stack.js';
import { rssMiB, sampleRss, servicePids } from '../support/process-memory.js';
import { postgresAvailable } from '../support/servers.js';
import { stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();
const CHART_LIMIT_MIB = { gateway: 512, registry: 256 };
const PER_CLIENT = 100;
const TOTAL = 1000;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  req: ClientRequest;
}

let opened = 0;
/** Opens one stream of a domain of its own from `from`; a 200 stays open until its request is destroyed. */
function open(api: string, from: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${api}/dynamic-events/stream?domain=flood-${++opened}.example`, { agent: false, localAddress: from }, (res) => {
      const answer = { status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], req };
      if (res.statusCode === 200) return resolve(answer);
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve(answer);
      });
    });
    req.on('error', reject).end();
  });
}

/** `count` streams from the addresses in turn, `wave` at a time (the listen backlog is 511). */
async function flood(api: string, addresses: string[], count: number, wave = 100): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i += wave) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(wave, count - i) }, (_, j) => open(api, addresses[(i + j) % addresses.length]!)))));
  }
  return answers;
}

/** nodejs_heap_size_used_bytes of a service's /metrics, in MiB: its live heap after the last GC and what came since. */
async function heapUsedMiB(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? NaN) / 1024 / 1024;
}

const statuses = (answers: Answer[]) => answers.reduce<Record<number, number>>((count, a) => ({ ...count, [a.status]: (count[a.status] ?? 0) + 1 }), {});

describe.skipIf(!up)('the stream caps on the real stack', () => {
  const ctx = useStackOnFreshDatabase('e2e-stream-caps');

  it('refuses one client beyond its cap and everyone beyond the total, under the chart memory limits; memory comes back', { timeout: 240_000 }, async () => {
    const pids = servicePids(ctx.stack.process.pid!) as { gateway: number; registry: number };
    const heapUsed = async () => ({ gateway: await heapUsedMiB(ctx.stack.metrics.gateway), registry: await heapUsedMiB(ctx.stack.metrics.registry) });
    const start = { gateway: rssMiB(pids.gateway), registry: rssMiB(pids.registry) };
    const startHeap = await heapUsed();
    const sampler = sampleRss({ gateway: pids.gateway, registry: pids.registry });

    const one = await flood(ctx.stack.api, ['127.0.0.1'], 3000);
    expect(statuses(one)).toEqual({ 200: PER_CLIENT, 429: 3000 - PER_CLIENT });
    expect(one.filter((a) => a.status === 429).every((a) => /^\d+$/.test(a.retryAfter ?? ''))).toBe(true);
    const afterOne = { gateway: rssMiB(pids.gateway), registry: rssMiB(pids.registry) };

    const addresses = Array.from({ length: 30 }, (_, i) => `127.0.1.${i + 1}`);
    const many = await flood(ctx.stack.api, addresses, 3000);
    expect(many.filter((a) => a.status === 200)).toHaveLength(TOTAL - PER_CLIENT);
    expect(many.every((a) => a.status === 200 || (a.status === 503 && /^\d+$/.test(a.retryAfter ?? '')))).toBe(true);
    expect((await fetch(`${ctx.stack.baseUrl}/readyz`)).status).toBe(200);
    const peak = sampler.stop();

    const heldHeap = await heapUsed();
    for (const a of [...one, ...many]) a.req.destroy();
    await pollUntil('every place given back', async () => {
      const probe = await open(ctx.stack.api, '127.0.0.1');
      probe.req.destroy();
      return probe.status === 200;
    }, { timeoutMs: 20_000, intervalMs: 250 });
    // Memory comes back: the streams' garbage is collected once they closed (collectAfterBursts), so
    // the live heap returns near its start. RSS keeps the heap V8 grew into (heap-headroom.ts).
    let end = { gateway: 0, registry: 0 };
    await pollUntil('the live heap back near its start', async () => {
      end = await heapUsed();
      return end.gateway - startHeap.gateway < 20 && end.registry - startHeap.registry < 20;
    }, { timeoutMs: 30_000, intervalMs: 500 }).catch(() => {});
    const endRss = { gateway: rssMiB(pids.gateway), registry: rssMiB(pids.registry) };
    const mib = (o: Record<string, number>) => JSON.stringify(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)])));
    console.info(`stream caps: RSS MiB start ${mib(start)}, after one client ${mib(afterOne)}, peak at the total ${mib(peak)}, after closing ${mib(endRss)}; live heap MiB start ${mib(startHeap)}, held ${mib(heldHeap)}, after closing ${mib(end)}`);
    expect(peak.gateway).toBeLessThan(CHART_LIMIT_MIB.gateway);
    expect(peak.registry).toBeLessThan(CHART_LIMIT_MIB.registry);
    expect(end.gateway - startHeap.gateway).toBeLessThan(20);
    expect(end.registry - startHeap.registry).toBeLessThan(20);
    expect(endRss.gateway).toBeLessThanOrEqual(peak.gateway);
    // The registry's old generation is capped (deploy/local/plan.ts REGISTRY_HEAP_OPTION), so V8
    // collects during the flood and its RSS after closing sits at the flood's level, a MiB or two
    // either side: what must hold after closing is its limit, and the live heap back near its start
    // (above), which is what a leak in the streams' teardown would break.
    expect(endRss.registry).toBeLessThan(CHART_LIMIT_MIB.registry);
  });
});
