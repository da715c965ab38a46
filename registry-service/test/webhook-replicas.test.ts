/**
 * Delivery across replicas and over time, on real PostgreSQL: two registries on one database
 * deliver each change once between them; a webhook whose every attempt fails for
 * WEBHOOK_DISABLE_AFTER is disabled with its reason; a dead endpoint does not hold up another
 * webhook; failed deliveries are sent again by Retry and Recover with their webhook-id.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Answer, type Receiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, startRegistry, type TestRegistry } from './helpers.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestRegistry;
let b: TestRegistry;
let api: WebhookApi;
const open: Receiver[] = [];

beforeAll(async () => {
  if (!up) return;
  db = await createTestDatabase();
  // A webhook is disabled after 2 s of failures; retries every second, ten times.
  const webhooks = { retryScheduleSeconds: Array(10).fill(1) as number[], disableAfterSeconds: 2, timeoutMs: 1000 };
  a = await startRegistry({ databaseUrl: db.url, webhooks });
  b = await startRegistry({ databaseUrl: db.url, webhooks, migrate: false });
  api = webhookApi(a.address);
});
afterAll(async () => {
  api?.close();
  await b?.close();
  await a?.close();
  await db?.drop();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});
async function receiver(answer?: Answer) {
  const r = await startReceiver({ answer });
  open.push(r);
  return r;
}
const FAILED = 3;

const eventsIn = (r: Receiver) => new Set(r.received.map((x) => (JSON.parse(x.body) as { data: { id: string } }).data.id));

/** Waits until `count` distinct events arrived: a repeat is a request too, so 300 requests may carry fewer events. */
async function untilEvents(r: Receiver, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let n = count; eventsIn(r).size < count; n = r.received.length + 1) await r.waitFor(n, deadline - Date.now());
}

describe.skipIf(!up)('delivery across replicas', () => {
  it('two replicas deliver 300 events between them, each with one webhook-id', async () => {
    const r = await receiver();
    const { webhook } = await api.create({ url: r.url });
    const ids = new Set<string>();
    // Recorded on both replicas, 20 at a time.
    for (let batch = 0; batch < 15; batch++) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ((batch + i) % 2 === 0 ? a : b).api.recordEvent(sampleEvent({ source: { objectId: `ch-${i}` } }))));
      for (const result of results) ids.add(result.event!.id);
    }
    await untilEvents(r, 300, 20_000).catch(async (err: Error) => {
      const state = await a.pool.query("SELECT status, count(*)::int AS n, min(next_attempt_at) AS next FROM webhook_deliveries GROUP BY status");
      const cursor = await a.pool.query('SELECT fanned_through, (SELECT max(seq) FROM commit_log) AS last FROM webhooks');
      throw new Error(`${err.message} (${eventsIn(r).size} of 300 events): ${JSON.stringify(state.rows)} ${JSON.stringify(cursor.rows)} now ${new Date().toISOString()} bounds ${a.server.watching.horizon.bound} ${b.server.watching.horizon.bound}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // An attempt that outlives its timeout under load is sent again: a repeat carries its webhook-id.
    const idsOf = new Map<string, Set<string>>();
    for (const x of r.received) {
      const event = (JSON.parse(x.body) as { data: { id: string } }).data.id;
      idsOf.set(event, (idsOf.get(event) ?? new Set()).add(String(x.headers['webhook-id'])));
    }
    expect(new Set(idsOf.keys())).toEqual(ids);
    expect([...idsOf.values()].filter((w) => w.size !== 1)).toEqual([]);
    await api.delete(webhook!.id);
  });

  it('a dead endpoint is disabled after WEBHOOK_DISABLE_AFTER of failures while a healthy webhook is delivered meanwhile', async () => {
    const dead = await receiver((_q, _n, res) => res.writeHead(503).end());
    const healthy = await receiver();
    const failing = (await api.create({ url: dead.url })).webhook!;
    const fine = (await api.create({ url: healthy.url })).webhook!;
    await a.api.recordEvent(sampleEvent());
    await healthy.waitFor(1, 2000);
    const disabled = await eventually(() => api.get(failing.id), (w) => !w.enabled, 10_000);
    expect(disabled.disabledReason).toMatch(/^every attempt failed since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await api.get(fine.id)).enabled).toBe(true);
    // Nothing more is sent to it while disabled; its delivery stays pending, not lost.
    const attempts = dead.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(dead.received.length).toBe(attempts);
    const [pending] = (await api.deliveries(failing.id)).deliveries;
    expect(pending!.status).toBe(1);
    // Counted by the replica whose attempt disabled it, just after the change it reads back above.
    await eventually(async () => (await a.promRegistry.metrics()) + (await b.promRegistry.metrics()), (m) => /registry_webhooks_disabled_total\{reason="failing"\} 1/.test(m));
    for (const w of [failing, fine]) await api.delete(w.id);
  });

  it('Retry sends a failed delivery again with its webhook-id; Recover sends every failed one since a time', async () => {
    let healthy = false;
    const r = await receiver((_q, _n, res) => res.writeHead(healthy ? 204 : 500).end());
    // One attempt and no retry: a failure is final at once.
    const { webhook } = await api.create({ url: r.url });
    await a.pool.query('UPDATE webhooks SET failing_since = NULL');
    const since = { seconds: String(Math.floor(Date.now() / 1000) - 1), nanos: 0 };
    for (let i = 0; i < 3; i++) await a.api.recordEvent(sampleEvent({ source: { objectId: `r-${i}` } }));
    await eventually(() => api.deliveries(webhook!.id), (l) => l.deliveries.length === 3 && l.deliveries.every((d) => d.attemptCount >= 1));
    // Their schedule would take ten seconds to run out: stop the attempts, then mark them failed as its end does.
    await api.update({ id: webhook!.id, enabled: false });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await a.pool.query("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = $1", [webhook!.id]);
    await api.update({ id: webhook!.id, enabled: true });
    const failed = (await api.deliveries(webhook!.id, { status: FAILED })).deliveries;
    expect(failed).toHaveLength(3);
    healthy = true;
    const before = r.received.length;
    const retried = await api.retry(webhook!.id, failed[0]!.id);
    expect(retried.status).toBe(1);
    await r.waitFor(before + 1);
    expect(r.received.at(-1)!.headers['webhook-id']).toBe(failed[0]!.id);
    expect(await api.recover(webhook!.id, since)).toBe(2);
    await r.waitFor(before + 3);
    await eventually(() => api.deliveries(webhook!.id, { status: 2 }), (l) => l.deliveries.length === 3);
    await api.delete(webhook!.id);
  });
});
