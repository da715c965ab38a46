/**
 * Webhook delivery end to end on real PostgreSQL: events recorded through RegistryService reach a
 * node:http receiver on loopback, signed as the Standard Webhooks specification says (verified
 * with the official `standardwebhooks` package), in commit order, with the delivery log written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
let receiver: Receiver;
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))), { webhooks: {} });
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  api?.close();
  await receiver?.close();
});

const headersOf = (r: Receiver['received'][number]) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe.skipIf(!up)('webhook delivery', () => {
  it('delivers every matching event once, signed, in commit order, the data as the event reads back', async () => {
    const { webhook, secret } = await api.create({ url: receiver.url, description: 'alarm system' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook!.filter!.kinds!.values).toEqual(['event.created']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.api.recordEvent(sampleEvent({ additionalProperties: [{ key: 'n', value: String(i) }] }))).event!.id);
    const received = await receiver.waitFor(5);
    const verifier = new Webhook(secret);
    const bodies = received.map((r) => verifier.verify(r.body, headersOf(r)) as { type: string; timestamp: string; data: { id: string; event_additional_properties: Record<string, string> } });
    expect(bodies.map((b) => b.data.id)).toEqual(ids);
    expect(bodies.every((b) => b.type === 'event.created')).toBe(true);
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers['user-agent']).toMatch(/^dynamic-events-webhooks\//);
    const stored = await t.api.getEvent(ids[0]!);
    expect(bodies[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect(bodies[0]!.data).toMatchObject({ id: stored.event!.id, domain: 'acme.camera.lpr', event_type: 'plate_detected', event_additional_properties: { n: '0' } });
    const log = await eventually(() => api.deliveries(webhook!.id), (l) => l.deliveries.length === 5 && l.deliveries.every((d) => d.status === 2));
    // Newest first; each id is the webhook-id its receiver saw.
    expect(log.deliveries.map((d) => d.eventId)).toEqual([...ids].reverse());
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set(log.deliveries.map((d) => d.id)));
    const one = await api.delivery(webhook!.id, log.deliveries[0]!.id);
    expect(one.attempts).toHaveLength(1);
    expect(one.attempts[0]).toMatchObject({ statusCode: 204, error: '' });
    await api.delete(webhook!.id);
  });
});
