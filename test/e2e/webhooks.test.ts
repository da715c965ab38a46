/**
 * Webhooks end to end on the real stack (`npm start`'s launcher, embedded PostgreSQL): a receiver
 * on loopback gets each change with the record exactly as its GET answers it, signed (verified with
 * the official `standardwebhooks` package); and the whole stack SIGKILLed under load, then started
 * again on its DATA_DIR, delivers every event that was answered 200.
 */
import { getPriority } from 'node:os';
import { pollUntil } from '@dynamic-events/proto/runtime';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { tempDir } from '../support/servers.js';
import { lintExposition, PROMTOOL, promtoolCheck } from '../support/metric-lint.js';
import { rssMiB, servicePids } from '../support/process-memory.js';
import { getJson, postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startReceiver, type Received } from '../support/webhook-receiver.js';

afterAll(stopAllStacks);

const ADMIN = 'webhook-admin-token-webhook-admin-token';
const auth = { authorization: `Bearer ${ADMIN}` };
const ENV = { ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s,1s,2s,2s,5s,5s,5s,5s' };

const headersOf = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

async function createWebhook(stack: Stack, body: unknown): Promise<{ id: string; secret: string }> {
  const res = await postJson(`${stack.api}/settings/dynamic-events/webhooks`, body, auth);
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

describe('webhooks on the real stack', () => {
  it('a receiver gets each change with the record exactly as its GET answers it', async () => {
    const dir = tempDir('e2e-webhooks');
    const receiver = await startReceiver();
    const stack = await startStack({ dataDir: dir.path, env: ENV });
    const { id, secret } = await createWebhook(stack, { url: receiver.url, filter: { kinds: ['event.created', 'device.created'] } });
    const posted = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'gate-cam-7' }));
    expect(posted.status).toBe(200);
    const event = posted.body as { id: string };
    const received = await receiver.waitFor(2, 15_000);
    const bodies = received.map((r) => new Webhook(secret).verify(r.body, headersOf(r)) as { type: string; data: unknown });
    const byType = new Map(bodies.map((b) => [b.type, b.data]));
    expect(byType.get('event.created')).toEqual((await getJson(`${stack.api}/dynamic-events/${event.id}`)).body);
    expect(byType.get('device.created')).toEqual((await getJson(`${stack.api}/devices/gate-cam-7`)).body);
    // The delivery metrics, as Prometheus reads them: attempts by outcome, the backlog per webhook.
    // The delivery process sent both; the registry ingest calls sent nothing.
    // The gauges are read from the database at each scrape, and an answered attempt's outcome is
    // written in the sender's next batch: its delivery counts as pending until then.
    let text = '';
    const counted = /^registry_webhook_attempt_duration_seconds_count 2$/m;
    const drained = new RegExp(`^registry_webhook_pending_deliveries\\{webhook_id="${id}"\\} 0$`, 'm');
    const read = async () => (text = await (await fetch(stack.metrics.delivery)).text());
    await pollUntil('both attempts counted and written', async () => counted.test(await read()) && drained.test(text), { timeoutMs: 5000 });
    expect(await (await fetch(stack.metrics.registry)).text()).toMatch(/^registry_webhook_attempt_duration_seconds_count 0$/m);
    expect(lintExposition(text)).toEqual([]);
    if (PROMTOOL) expect(promtoolCheck(PROMTOOL, text)).toEqual({ code: 0, output: '' });
    expect(text).toMatch(/^registry_webhook_attempts_total\{outcome="succeeded"\} 2$/m);
    expect(text).toMatch(drained);
    expect(text).toMatch(counted);
    // The sender runs at nice 10 once it has started, beside ingest's registry at the stack's own.
    const pids = servicePids(stack.process.pid!);
    expect(getPriority(pids.delivery!) - getPriority(pids.registry!)).toBe(10);
    await stack.stop();
    await receiver.close();
  }, 60_000);

  it('SIGKILL of the whole stack under load: after a restart on its DATA_DIR every event answered 200 is delivered', async () => {
    const dir = tempDir('e2e-webhooks-kill');
    // Slow answers keep a backlog of pending deliveries when the stack dies.
    const receiver = await startReceiver({ answer: (_r, _n, res) => setTimeout(() => res.writeHead(204).end(), 100) });
    const first = await startStack({ dataDir: dir.path, env: ENV });
    const { secret } = await createWebhook(first, { url: receiver.url });
    const answered = new Set<string>();
    let stop = false;
    const loop = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const res = await postJson(`${first.api}/dynamic-events`, exampleEvent({ device: `cam-${n}`, objectId: `ch-${i % 5}` })).catch(() => undefined);
        if (res?.status === 200) answered.add((res.body as { id: string }).id);
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await first.stop('SIGKILL');
    stop = true;
    await Promise.all(loops);
    const beforeRestart = receiver.received.length;
    expect(answered.size).toBeGreaterThan(50);
    // The kill left deliveries undone: the restart has something to prove.
    expect(beforeRestart).toBeLessThan(answered.size);
    const second = await startStack({ dataDir: dir.path, env: ENV });
    const deadline = Date.now() + 60_000;
    const delivered = () => new Set(receiver.received.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
    while ([...answered].some((id) => !delivered().has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const missing = [...answered].filter((id) => !delivered().has(id));
    expect({ missing: missing.length, answered: answered.size, beforeRestart }).toMatchObject({ missing: 0 });
    // Repeats are possible only as the same delivery again: one webhook-id per event.
    const idsPerEvent = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const { data } = new Webhook(secret).verify(r.body, headersOf(r)) as { data: { id: string } };
      idsPerEvent.set(data.id, (idsPerEvent.get(data.id) ?? new Set()).add(String(r.headers['webhook-id'])));
    }
    expect([...idsPerEvent.values()].every((ids) => ids.size === 1)).toBe(true);
    await second.stop();
    await receiver.close();
  }, 120_000);
});

/** RSS in MiB of the launcher's service processes, the webhook sender (`delivery`) among them. */
function serviceRss(launcherPid: number): Record<string, number> {
  return Object.fromEntries(Object.entries(servicePids(launcherPid)).map(([role, pid]) => [role, rssMiB(pid)]));
}

describe('a dead endpoint', () => {
  it('3,000 deliveries pending for a dead endpoint: ingest answers 200 and every service stays under 256 MiB', async () => {
    const dir = tempDir('e2e-webhooks-dead');
    // A port nothing listens on: every attempt is a refused connection.
    const gone = await startReceiver();
    const deadUrl = gone.url;
    await gone.close();
    const stack = await startStack({ dataDir: dir.path, env: ENV });
    await createWebhook(stack, { url: deadUrl });
    const statuses = new Map<number, number>();
    let peak: Record<string, number> = {};
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: `dead-${i % 10}`, objectId: `o-${round}-${i}` }))));
      for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (round % 10 === 9) {
        const rss = serviceRss(stack.process.pid!);
        for (const [name, mib] of Object.entries(rss)) peak = { ...peak, [name]: Math.max(peak[name] ?? 0, mib) };
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 3000 });
    const pending = await getJson(`${stack.api}/settings/dynamic-events/webhooks`, auth);
    const id = (pending.body as { webhooks: Array<{ id: string }> }).webhooks[0]!.id;
    const log = await getJson(`${stack.api}/settings/dynamic-events/webhooks/${id}/deliveries?status=pending&limit=1000`, auth);
    expect((log.body as { deliveries: unknown[] }).deliveries.length).toBeGreaterThan(900);
    expect(Object.keys(peak).sort()).toEqual(['delivery', 'gateway', 'media', 'registry']);
    for (const [name, mib] of Object.entries(peak)) expect(mib, name).toBeLessThan(256);
    await stack.stop();
  }, 120_000);
});
