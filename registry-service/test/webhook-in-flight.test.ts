/**
 * A webhook has at most WEBHOOK_MAX_IN_FLIGHT attempts in flight (delivery-runner.ts, on the
 * runtime's limiter): the deliveries beyond them wait on this replica, unsent, and each starts when
 * an attempt ends, so a slow endpoint's backlog never turns into attempts that time out queued.
 * Real PostgreSQL, a node:http receiver on loopback that answers each request after 1 s.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
// Two attempts at once; an attempt not answered within 1.5 s of its start fails.
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))), { webhooks: { timeoutMs: 1500, retryScheduleSeconds: [1, 2], maxInFlight: 2 } });

const SUCCEEDED = 2;
const open: Receiver[] = [];
afterAll(async () => {
  api?.close();
  await Promise.all(open.map((r) => r.close()));
});

describe.skipIf(!up)('attempts in flight per webhook', () => {
  it('holds at most its bound at the receiver; the others start as attempts end, and none times out waiting', async () => {
    let answering = 0;
    let peak = 0;
    const receiver = await startReceiver({
      answer: (_request, _n, res: ServerResponse) => {
        peak = Math.max(peak, ++answering);
        setTimeout(() => (answering--, res.writeHead(204).end()), 1000);
      },
    });
    open.push(receiver);
    const { webhook } = await api.create({ url: receiver.url });
    for (let i = 0; i < 6; i++) await t.api.recordEvent(sampleEvent({ additionalProperties: [{ key: 'n', value: String(i) }] }));
    const log = await eventually(
      () => api.deliveries(webhook!.id),
      (l) => l.deliveries.length === 6 && l.deliveries.every((d) => d.status === SUCCEEDED),
      20_000,
    );
    // Attempts queued beyond the bound (in the HTTP client) would have started their 1.5 s before reaching the receiver.
    expect(log.deliveries.map((d) => d.attemptCount)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(peak).toBe(2);
    expect(receiver.received).toHaveLength(6);
  });
});
