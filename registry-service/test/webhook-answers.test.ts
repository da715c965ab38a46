/**
 * What a receiver's answer does to a delivery, on real PostgreSQL with node:http receivers on
 * loopback: retries on the schedule with the same webhook-id, redirects not followed, Retry-After
 * honoured, 410 disabling the webhook with its deliveries kept, hostile answers cut short.
 */
import type { registry } from '@dynamic-events/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Answer, type Receiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
// Retries after 1 s and 2 s; answers within 1.5 s.
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))), { webhooks: { timeoutMs: 1500, retryScheduleSeconds: [1, 2] } });

const open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});
async function hook(answer: Answer) {
  const receiver = await startReceiver({ answer });
  open.push(receiver);
  const { webhook } = await api.create({ url: receiver.url });
  return { receiver, id: webhook!.id };
}
const PENDING = 1, SUCCEEDED = 2, FAILED = 3;
/** The webhook's one delivery, once fan-out made it. */
const NONE_YET = { id: '', status: 0, attemptCount: 0, lastError: '', lastStatusCode: undefined } as unknown as registry.Delivery;
const only = async (id: string): Promise<registry.Delivery> => (await api.deliveries(id)).deliveries[0] ?? NONE_YET;

describe.skipIf(!up)('receiver answers', () => {
  it('a 500 is retried after the schedule’s first step with the same webhook-id; the 2xx ends it', async () => {
    const { receiver, id } = await hook((_r, n, res) => res.writeHead(n === 0 ? 500 : 200).end(n === 0 ? 'boom' : 'ok'));
    await t.api.recordEvent(sampleEvent());
    const [first, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(700);
    const d = await eventually(() => only(id), (x) => x.status === SUCCEEDED);
    expect(d.attemptCount).toBe(2);
    const attempts = (await api.delivery(id, d.id)).attempts;
    expect(attempts.map((a) => [a.statusCode, a.error, a.responseBody])).toEqual([[500, 'answered 500', 'boom'], [200, '', 'ok']]);
  });

  it('a redirect is a failure and is not followed; past the last step the delivery has failed', async () => {
    const target = await startReceiver();
    open.push(target);
    const { receiver, id } = await hook((_r, _n, res) => res.writeHead(302, { location: target.url }).end());
    await t.api.recordEvent(sampleEvent());
    await receiver.waitFor(3, 15_000);
    const d = await eventually(() => only(id), (x) => x.status === FAILED, 15_000);
    expect(d).toMatchObject({ attemptCount: 3, lastStatusCode: 302, lastError: 'answered 302: redirects are not followed', nextAttemptAt: undefined });
    expect(target.received).toHaveLength(0);
  });

  it('a 429 with Retry-After waits that long (capped by the longest step)', async () => {
    const { receiver, id } = await hook((_r, n, res) => (n === 0 ? res.writeHead(429, { 'retry-after': '3600' }).end() : res.writeHead(204).end()));
    await t.api.recordEvent(sampleEvent());
    const [first, second] = await receiver.waitFor(2, 10_000);
    // Asked for an hour; the longest step is 2 s (with jitter at most 20 % shorter).
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1500);
    await eventually(() => only(id), (x) => x.status === SUCCEEDED);
  });

  it('410 disables the webhook saying why; its deliveries wait and go out, oldest first, once it is enabled', async () => {
    const { receiver, id } = await hook((_r, n, res) => res.writeHead(n === 0 ? 410 : 204).end());
    const firstEvent = (await t.api.recordEvent(sampleEvent())).event!.id;
    await receiver.waitFor(1);
    const disabled = await eventually(() => api.get(id), (w) => !w.enabled);
    expect(disabled.disabledReason).toBe('the endpoint answered 410 Gone');
    const later = [(await t.api.recordEvent(sampleEvent())).event!.id, (await t.api.recordEvent(sampleEvent())).event!.id];
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received).toHaveLength(1);
    const pending = await eventually(() => api.deliveries(id), (l) => l.deliveries.length === 3);
    expect(pending.deliveries.every((d) => d.status === PENDING)).toBe(true);
    const enabled = await api.update({ id, enabled: true });
    expect(enabled.disabledReason).toBe('');
    const received = await receiver.waitFor(4);
    expect(received.slice(1).map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id)).toEqual([firstEvent, ...later]);
  });

});

describe.skipIf(!up)('hostile receivers', () => {
  it('an endpoint that never answers fails within WEBHOOK_TIMEOUT_MS; a huge body is read to 1 KiB; bytes that are not UTF-8 are kept as replacement characters', async () => {
    const silent = await hook(() => {});
    const huge = await hook((_r, _n, res) => res.writeHead(500).end(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.alloc(5_000_000, 'x')])));
    await t.api.recordEvent(sampleEvent());
    const timedOut = await eventually(() => only(silent.id), (d) => d.attemptCount >= 1, 8000);
    expect(timedOut.lastError).toBe('no answer within 1500 ms');
    expect(timedOut.lastStatusCode).toBeUndefined();
    const cut = await eventually(() => only(huge.id), (d) => d.attemptCount >= 1);
    const body = (await api.delivery(huge.id, cut.id)).attempts[0]!.responseBody;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 3);
    expect(body.startsWith('\uFFFD\uFFFD\uFFFD')).toBe(true);
    // 1,024 bytes kept: three that are not text (each one U+FFFD) and 1,021 x.
    expect(body).toBe(`\uFFFD\uFFFD\uFFFD${'x'.repeat(1021)}`);
    for (const w of [silent.id, huge.id]) await api.delete(w);
  });

  it('10,000 headers and a slow trickle are failures, and other webhooks are delivered meanwhile', async () => {
    const manyHeaders = await hook((_r, _n, res) => {
      for (let i = 0; i < 10_000; i++) res.setHeader(`x-h${i}`, 'v');
      res.writeHead(200).end();
    });
    const trickle = await hook((_r, _n, res) => {
      res.writeHead(200, { 'content-length': '100' });
      const timer = setInterval(() => res.write('x'), 200);
      res.on('close', () => clearInterval(timer));
    });
    const healthy = await hook((_r, _n, res) => res.writeHead(204).end());
    await t.api.recordEvent(sampleEvent());
    const [arrived] = await healthy.receiver.waitFor(1);
    expect((await eventually(() => only(manyHeaders.id), (d) => d.attemptCount >= 1)).lastError).toBe('the answer’s headers are too large');
    const trickled = await eventually(() => only(trickle.id), (d) => d.attemptCount >= 1, 8000);
    expect(trickled.lastError).toBe('no answer within 1500 ms');
    // The healthy webhook was delivered before the trickle's attempt gave up, not after it.
    const gaveUp = (await api.delivery(trickle.id, trickled.id)).attempts[0]!.at!;
    expect(arrived!.at).toBeLessThan(Number(gaveUp.seconds) * 1000 + gaveUp.nanos / 1e6);
    for (const w of [manyHeaders.id, trickle.id, healthy.id]) await api.delete(w);
  });
});
