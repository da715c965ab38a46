/**
 * The caps on open event streams on the real stack (as `npm start` runs it, on PostgreSQL): one
 * client opening 3,000 streams, each of another domain (a registry stream of its own), gets
 * MAX_STREAMS_PER_CLIENT of them and 429 for the rest; 3,000 more from 30 addresses fill the
 * gateway's MAX_STREAMS and get 503 beyond; meanwhile no process passes its chart memory limit
 * (gateway 512 MiB, registry 256 MiB), and once they close the places and the memory come back.
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

const statuses = (answers: Answer[]) => answers.reduce<Record<number, number>>((count, a) => ({ ...count, [a.status]: (count[a.status] ?? 0) + 1 }), {});

describe.skipIf(!up)('the stream caps on the real stack', () => {
  const ctx = useStackOnFreshDatabase('e2e-stream-caps');

  it('refuses one client beyond its cap and everyone beyond the total, under the chart memory limits; memory comes back', { timeout: 240_000 }, async () => {
    const pids = servicePids(ctx.stack.process.pid!) as { gateway: number; registry: number };
    const start = { gateway: rssMiB(pids.gateway), registry: rssMiB(pids.registry) };
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

    for (const a of [...one, ...many]) a.req.destroy();
    await pollUntil('every place given back', async () => {
      const probe = await open(ctx.stack.api, '127.0.0.1');
      probe.req.destroy();
      return probe.status === 200;
    }, { timeoutMs: 20_000, intervalMs: 250 });
    // Memory comes back: within 20 s each process is back near where it started (V8 keeps some heap).
    let end = { gateway: 0, registry: 0 };
    await pollUntil('memory back near its start', async () => {
      end = { gateway: rssMiB(pids.gateway), registry: rssMiB(pids.registry) };
      return end.gateway - start.gateway < (peak.gateway - start.gateway) / 2 + 10 && end.registry - start.registry < (peak.registry - start.registry) / 2 + 10;
    }, { timeoutMs: 30_000, intervalMs: 500 }).catch(() => {});
    console.info(`stream caps: RSS MiB start ${JSON.stringify(start)}, after one client ${JSON.stringify(afterOne)}, peak at the total ${JSON.stringify(peak)}, 30 s after closing ${JSON.stringify(end)}`);
    expect(peak.gateway).toBeLessThan(CHART_LIMIT_MIB.gateway);
    expect(peak.registry).toBeLessThan(CHART_LIMIT_MIB.registry);
    expect(end.gateway - start.gateway).toBeLessThan((peak.gateway - start.gateway) / 2 + 10);
    expect(end.registry - start.registry).toBeLessThan((peak.registry - start.registry) / 2 + 10);
  });
});
