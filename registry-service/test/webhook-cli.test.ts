/**
 * The operator CLI's webhooks commands, in process through runCli, against a real grpc-js server on
 * 127.0.0.1:0 serving a small WebhookService: what each command sends and what it prints (the
 * HTTP API's shapes). The registry's own WebhookService and its rules are tested with the registry.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError, invalidArgument, registry, type Timestamp } from '@dynamic-events/proto';
import { createGrpcServer, type AsyncServiceImpl, type CallContext, type GrpcServer } from '@dynamic-events/proto/runtime';
import { runCli } from '../src/cli/run.js';

const CREDENTIAL = 'cli-test-webhook-credential-0123456789abcdef';
const AT: Timestamp = { seconds: '1763713204', nanos: 5 };
const AT_TEXT = '2025-11-21T08:20:04.000000005Z';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const WEBHOOK: registry.Webhook = {
  id: 'w-1',
  url: 'https://example.com/hook',
  description: '',
  filter: { domains: { values: [] }, eventTypes: undefined, deviceNames: undefined, kinds: { values: ['event.created'] } },
  enabled: false,
  disabledReason: 'answered 410 Gone',
  createdAt: AT,
  updatedAt: AT,
};
const WEBHOOK_JSON = {
  id: 'w-1',
  url: 'https://example.com/hook',
  description: '',
  filter: { domains: [], kinds: ['event.created'] },
  enabled: false,
  disabled_reason: 'answered 410 Gone',
  created_at: AT_TEXT,
  updated_at: AT_TEXT,
};
const DELIVERY: registry.Delivery = {
  id: 'msg_1',
  eventId: '',
  type: 'device.created',
  status: registry.DeliveryStatus.DELIVERY_STATUS_FAILED,
  attemptCount: 8,
  lastStatusCode: undefined,
  lastError: 'connection refused',
  nextAttemptAt: undefined,
  createdAt: AT,
  succeededAt: undefined,
  attempts: [],
};
const DELIVERY_JSON = {
  id: 'msg_1',
  event_id: null,
  type: 'device.created',
  status: 'failed',
  attempt_count: 8,
  last_status_code: null,
  last_error: 'connection refused',
  next_attempt_at: null,
  created_at: AT_TEXT,
  succeeded_at: null,
};

const requests: Array<{ method: string; request: unknown }> = [];

function fakeWebhookService(): AsyncServiceImpl<registry.WebhookServiceServer> {
  const seen = (method: string, request: unknown, ctx: CallContext) => {
    if (ctx.metadata.get('authorization')[0] !== `Bearer ${CREDENTIAL}`) throw new AppError('UNAUTHENTICATED', 'WebhookService needs the internal credential');
    requests.push({ method, request });
  };
  const one = async (method: string, request: { id: string }, ctx: CallContext) => {
    seen(method, request, ctx);
    if (request.id !== WEBHOOK.id) throw new AppError('NOT_FOUND', `webhook ${request.id} not found`, { field: 'id' });
    return { webhook: WEBHOOK };
  };
  return {
    async createWebhook(request, ctx) {
      seen('createWebhook', request, ctx);
      if (request.url.startsWith('http://10.')) throw invalidArgument('url', 'address', 'url must not name an internal address');
      return { webhook: WEBHOOK, secret: SECRET };
    },
    listWebhooks: async (request, ctx) => (seen('listWebhooks', request, ctx), { webhooks: [WEBHOOK], nextPageToken: request.pageSize === 1 ? 'next' : '' }),
    getWebhook: (request, ctx) => one('getWebhook', request, ctx),
    updateWebhook: (request, ctx) => one('updateWebhook', request, ctx),
    deleteWebhook: (request, ctx) => one('deleteWebhook', request, ctx),
    rotateWebhookSecret: async (request, ctx) => (await one('rotateWebhookSecret', request, ctx), { secret: SECRET }),
    listDeliveries: async (request, ctx) => (seen('listDeliveries', request, ctx), { deliveries: [DELIVERY], nextPageToken: '' }),
    getDelivery: async (request, ctx) => (seen('getDelivery', request, ctx), { delivery: DELIVERY }),
    retryDelivery: async (request, ctx) => (seen('retryDelivery', request, ctx), { delivery: { ...DELIVERY, status: registry.DeliveryStatus.DELIVERY_STATUS_PENDING, nextAttemptAt: AT } }),
    recoverDeliveries: async (request, ctx) => (seen('recoverDeliveries', request, ctx), { recovered: '12' }),
  };
}

let server: GrpcServer;
let address: string;
beforeAll(async () => {
  server = createGrpcServer({ logger: pino({ level: 'silent' }) });
  server.addService<registry.WebhookServiceServer>(registry.WebhookServiceService, fakeWebhookService());
  address = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
});
afterAll(() => server.shutdown(1000));
beforeEach(() => void requests.splice(0));

/** Runs the CLI in process; resolves with its exit code, stdout parsed as JSON when it succeeded, and stderr. */
async function cli(env: Record<string, string>, ...argv: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--address', address, ...argv], env, { stdout: (s) => void (stdout += s), stderr: (s) => (stderr += s) });
  return { code, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : {}, stderr };
}
const run = (...argv: string[]) => cli({ REGISTRY_INTERNAL_TOKEN: CREDENTIAL }, ...argv);
const last = () => requests.at(-1);

describe('registry CLI: webhooks commands', () => {
  it('creates a webhook: the secret first, then the webhook in the HTTP API shape; the flags reach the registry', async () => {
    const created = await run('webhooks', 'create', '--url', 'https://example.com/hook', '--description', 'd', '--filter', '{"domains": [], "kinds": ["event.created"]}', '--enabled', 'false');
    expect(created.code).toBe(0);
    expect(Object.keys(created.json)[0]).toBe('secret');
    expect(created.json).toEqual({ secret: SECRET, ...WEBHOOK_JSON });
    expect(last()).toEqual({
      method: 'createWebhook',
      request: { url: 'https://example.com/hook', description: 'd', filter: { domains: { values: [] }, eventTypes: undefined, deviceNames: undefined, kinds: { values: ['event.created'] } }, enabled: false },
    });
    await run('webhooks', 'create', '--url', 'https://example.com/other');
    expect(last()?.request).toEqual({ url: 'https://example.com/other', description: '', filter: undefined, enabled: undefined });
  });

  it('lists, gets, updates and deletes, printing the HTTP API shapes', async () => {
    expect((await run('webhooks', 'list')).json).toEqual({ webhooks: [WEBHOOK_JSON], next_page_token: null });
    expect(last()?.request).toEqual({ pageSize: 0, pageToken: '' });
    expect((await run('webhooks', 'list', '--limit', '1', '--page-token', 'abc')).json).toEqual({ webhooks: [WEBHOOK_JSON], next_page_token: 'next' });
    expect(last()?.request).toEqual({ pageSize: 1, pageToken: 'abc' });
    expect((await run('webhooks', 'get', 'w-1')).json).toEqual(WEBHOOK_JSON);
    expect((await run('webhooks', 'update', 'w-1', '--enabled', 'true', '--filter', '{}')).json).toEqual(WEBHOOK_JSON);
    expect(last()?.request).toEqual({ id: 'w-1', url: undefined, description: undefined, filter: { domains: undefined, eventTypes: undefined, deviceNames: undefined, kinds: undefined }, enabled: true });
    await run('webhooks', 'update', 'w-1', '--url', 'https://example.com/b');
    expect(last()?.request).toEqual({ id: 'w-1', url: 'https://example.com/b', description: undefined, filter: undefined, enabled: undefined });
    expect((await run('webhooks', 'delete', 'w-1')).json).toEqual(WEBHOOK_JSON);
    expect(last()?.method).toBe('deleteWebhook');
  });

  it('lists deliveries (status as a word, nulls where unset), retries one and recovers failed ones since a time', async () => {
    expect((await run('webhooks', 'deliveries', 'w-1')).json).toEqual({ deliveries: [DELIVERY_JSON], next_page_token: null });
    expect(last()?.request).toEqual({ webhookId: 'w-1', status: 0, eventId: '', pageSize: 0, pageToken: '' });
    await run('webhooks', 'deliveries', 'w-1', '--status', 'failed', '--event-id', 'e-1', '--limit', '5');
    expect(last()?.request).toEqual({ webhookId: 'w-1', status: registry.DeliveryStatus.DELIVERY_STATUS_FAILED, eventId: 'e-1', pageSize: 5, pageToken: '' });
    expect((await run('webhooks', 'retry', 'w-1', 'msg_1')).json).toEqual({ ...DELIVERY_JSON, status: 'pending', next_attempt_at: AT_TEXT });
    expect(last()).toEqual({ method: 'retryDelivery', request: { webhookId: 'w-1', deliveryId: 'msg_1' } });
    expect((await run('webhooks', 'recover', 'w-1', '--since', '2025-11-21T09:20:04.000000005+01:00')).json).toEqual({ recovered: 12 });
    expect(last()).toEqual({ method: 'recoverDeliveries', request: { webhookId: 'w-1', since: AT } });
  });

  it("exits 1 with the registry's message and field when it refuses; without the credential it says what to set", async () => {
    const used = `using the registry at ${address} (--address)\n`;
    expect(await run('webhooks', 'get', 'nope')).toEqual({ code: 1, json: {}, stderr: `${used}error: webhook nope not found (field id)\n` });
    expect(await run('webhooks', 'create', '--url', 'http://10.0.0.1/')).toEqual({ code: 1, json: {}, stderr: `${used}error: url must not name an internal address (field url)\n` });
    const refused = await cli({}, 'webhooks', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("set REGISTRY_INTERNAL_TOKEN to the registry's value");
  });

  it('says which webhook to delete when stdout closed before its secret was written, and never prints the secret', async () => {
    let stderr = '';
    const out = { stdout: () => Promise.reject(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })), stderr: (s: string) => void (stderr += s) };
    const code = await runCli(['--address', address, 'webhooks', 'create', '--url', 'https://example.com/hook'], { REGISTRY_INTERNAL_TOKEN: CREDENTIAL }, out);
    expect(code).toBe(1);
    expect(stderr).toContain("stdout closed before the webhook's secret was written: webhook w-1 was created; delete it (webhooks delete w-1) and create another");
    expect(stderr).not.toContain(SECRET);
  });

});

describe('registry CLI: webhooks command lines', () => {
  it.each([
    [['webhooks', 'frob'], 'unknown command: webhooks frob'],
    [['webhooks', 'create'], 'webhooks create needs --url'],
    [['webhooks', 'create', '--url', 'https://a', '--enabled', 'yes'], '--enabled must be true or false'],
    [['webhooks', 'create', '--url', 'https://a', '--filter', '{nope'], '--filter must be JSON'],
    [['webhooks', 'create', '--url', 'https://a', '--filter', '[]'], '--filter must be a JSON object'],
    [['webhooks', 'create', '--url', 'https://a', '--filter', '{"domain": []}'], '--filter: filter.domain is not a filter field'],
    [['webhooks', 'create', '--url', 'https://a', '--filter', '{"__proto__": []}'], '--filter: filter.__proto__ is not a filter field'],
    [['webhooks', 'create', '--url', 'https://a', '--filter', '{"kinds": "event.created"}'], '--filter: filter.kinds must be an array of strings'],
    [['webhooks', 'create', '--url', 'https://a', '--since', '2026-01-01T00:00:00Z'], 'webhooks create does not take --since'],
    [['webhooks', 'update', 'w-1'], 'webhooks update needs at least one of --url, --description, --filter, --enabled'],
    [['webhooks', 'get'], 'webhooks get takes one webhook id'],
    [['webhooks', 'retry', 'w-1'], 'webhooks retry takes a webhook id and a delivery id'],
    [['webhooks', 'list', 'x'], 'webhooks list takes no argument'],
    [['webhooks', 'list', '--limit', '0'], '--limit must be an integer between 1 and 1000'],
    [['webhooks', 'deliveries', 'w-1', '--status', 'done'], '--status must be pending, succeeded or failed'],
    [['webhooks', 'recover', 'w-1'], 'webhooks recover needs --since'],
    [['webhooks', 'recover', 'w-1', '--since', 'yesterday'], '--since must be an RFC 3339 date-time'],
    [['webhooks', 'create', '--url', 'https://a', '--url', 'https://b'], '--url is given more than once'],
  ])('exits 2 with the usage for %j, calling nothing', async (argv, message) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('webhooks deliveries ID [--status pending|succeeded|failed]');
    expect(requests).toEqual([]);
  });
});
