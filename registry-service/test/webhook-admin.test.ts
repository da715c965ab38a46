/**
 * WebhookService management on real PostgreSQL: inputs checked naming the field, secrets answered
 * once and stored sealed, rotation signing with both secrets for a day, filters, pages, and the
 * internal credential required.
 */
import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { AppError, registry } from '@dynamic-events/proto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { startReceiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))), { webhooks: {} });
afterAll(() => api?.close());

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
const list = (values: string[]) => ({ values });

describe.skipIf(!up)('WebhookService', () => {
  it('refuses every bad input with INVALID_ARGUMENT naming the field', async () => {
    const cases: Array<[Partial<registry.CreateWebhookRequest> & { url: string }, string, string]> = [
      [{ url: 'ftp://hooks.example.com/' }, 'url', 'scheme'],
      [{ url: 'http://10.0.0.8/' }, 'url', 'internal-address'],
      [{ url: 'https://a:b@hooks.example.com/' }, 'url', 'user-info'],
      [{ url: 'https://hooks.example.com/', description: 'x'.repeat(1025) }, 'description', 'max-length'],
      [{ url: 'https://hooks.example.com/', filter: { domains: list(['Acme']), eventTypes: undefined, deviceNames: undefined, kinds: undefined } }, 'filter.domains[0]', 'domain-pattern'],
      [{ url: 'https://hooks.example.com/', filter: { domains: undefined, eventTypes: list(['ok', '']), deviceNames: undefined, kinds: undefined } }, 'filter.event_types[1]', 'required'],
      [{ url: 'https://hooks.example.com/', filter: { domains: undefined, eventTypes: undefined, deviceNames: undefined, kinds: list(['event.deleted']) } }, 'filter.kinds[0]', 'one-of'],
    ];
    for (const [request, field, rule] of cases) {
      const err = await refusal(api.create(request));
      expect([err.code, err.details]).toEqual(['INVALID_ARGUMENT', expect.objectContaining({ field, rule })]);
    }
    expect((await api.list()).webhooks).toHaveLength(0);
    expect((await refusal(api.get('nope'))).code).toBe('NOT_FOUND');
    expect((await refusal(api.update({ id: '01890000-0000-7000-8000-000000000000', url: 'https://x.example.com/' }))).code).toBe('NOT_FOUND');
  });

  it('answers the secret once; lists, pages and reads never show it; the database holds it sealed', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await api.create({ url: `https://hooks${i}.example.com/in`, enabled: false }));
    const secrets = made.map((m) => m.secret);
    const first = await api.list(2);
    const second = await api.list(2, first.nextPageToken);
    expect([...first.webhooks, ...second.webhooks].map((w) => w.id)).toEqual(made.map((m) => m.webhook!.id));
    expect(second.nextPageToken).toBe('');
    expect(first.webhooks[0]).toMatchObject({ enabled: false, disabledReason: 'disabled by an admin' });
    const dump = JSON.stringify((await t.pool.query('SELECT * FROM webhooks')).rows);
    for (const secret of secrets) {
      expect(JSON.stringify([first, second])).not.toContain(secret.slice(6));
      expect(dump).not.toContain(secret.slice(6));
      expect(dump).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('hex'));
    }
    for (const m of made) await api.delete(m.webhook!.id);
  });

});

describe.skipIf(!up)('WebhookService: signing and filters', () => {
  it('a rotated secret signs beside the new one, so receivers verifying either accept', async () => {
    const receiver = await startReceiver();
    const { webhook, secret: old } = await api.create({ url: receiver.url });
    const fresh = await api.rotate(webhook!.id);
    expect(fresh).not.toBe(old);
    await t.api.recordEvent(sampleEvent());
    await receiver.waitFor(1);
    const [r] = receiver.received;
    const headers = { 'webhook-id': String(r!.headers['webhook-id']), 'webhook-timestamp': String(r!.headers['webhook-timestamp']), 'webhook-signature': String(r!.headers['webhook-signature']) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(r!.body, headers)).not.toThrow();
    expect(() => new Webhook(fresh).verify(r!.body, headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(r!.body, headers)).toThrow();
    await api.delete(webhook!.id);
    await receiver.close();
  });

  it('the filter chooses kinds, domains, event types and devices; a record without the field does not match', async () => {
    const receiver = await startReceiver();
    const filter = (f: Partial<registry.WebhookFilter>) => ({ domains: undefined, eventTypes: undefined, deviceNames: undefined, kinds: undefined, ...f });
    const hooks = {
      devices: await api.create({ url: receiver.url + '?devices', filter: filter({ kinds: list(['device.created']) }) }),
      lpr: await api.create({ url: receiver.url + '?lpr', filter: filter({ domains: list(['acme.camera.*']), kinds: list(['event.created', 'device.created', 'event_type.created']) }) }),
      motion: await api.create({ url: receiver.url + '?motion', filter: filter({ eventTypes: list(['motion']), deviceNames: list(['cam-9']) }) }),
    };
    expect((await api.get(hooks.lpr.webhook!.id)).filter!.domains!.values).toEqual(['acme.camera.*']);
    await t.api.recordEvent(sampleEvent({ source: { deviceName: 'cam-9', objectDomain: 'acme.camera.gate' } }));
    await t.api.recordEvent(sampleEvent({ source: { deviceName: 'cam-9', objectDomain: 'other.zone', objectId: 'z1' }, eventType: { eventType: 'motion' } }));
    await receiver.waitFor(4);
    await new Promise((r) => setTimeout(r, 500));
    const types = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    // devices: the one device.created; lpr: the acme.camera event, its event type (no device: a device has no domain); motion: the motion event.
    expect(types.filter((b) => b.type === 'device.created')).toHaveLength(1);
    expect(types.filter((b) => b.type === 'event_type.created').map((b) => b.data.domain)).toEqual(['acme.camera.gate']);
    expect(types.filter((b) => b.type === 'event.created').map((b) => [b.data.domain, b.data.event_type]).sort()).toEqual([
      ['acme.camera.gate', 'plate_detected'],
      ['other.zone', 'motion'],
    ]);
    expect(receiver.received).toHaveLength(4);
    for (const h of Object.values(hooks)) await api.delete(h.webhook!.id);
    await receiver.close();
  });

  it('refuses calls without the internal credential', async () => {
    const client = createGrpcClient(registry.WebhookServiceClient, t.address);
    const err = await refusal(callUnary(client.listWebhooks.bind(client), { pageSize: 0, pageToken: '' }, { deadlineMs: 5000 }));
    expect(err.code).toBe('UNAUTHENTICATED');
    client.close();
  });
});
