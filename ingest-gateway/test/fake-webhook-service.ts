/**
 * A small WebhookService on a real grpc-js server (127.0.0.1:0), over an in-memory list, for the
 * gateway's webhook admin tests: the real client and mapping dial it. It refuses as the registry
 * does where the tests need a refusal (a bad url, an unknown id, a bad page token, a missing
 * credential), each as INVALID_ARGUMENT / NOT_FOUND / UNAUTHENTICATED naming the field; the value
 * rules themselves are the registry's tests' business. `requests` records what reached it.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { AppError, invalidArgument, registry, type Timestamp } from '@dynamic-events/proto';
import { createGrpcServer, type AsyncServiceImpl, type CallContext } from '@dynamic-events/proto/runtime';

export const WEBHOOK_CREDENTIAL = 'gateway-test-webhook-credential-0123456789';
export const CREATED: Timestamp = { seconds: '1763713204', nanos: 123456789 };
export const CREATED_TEXT = '2025-11-21T08:20:04.123456789Z';
const LATER: Timestamp = { seconds: '1763713265', nanos: 0 };
export const LATER_TEXT = '2025-11-21T08:21:05.000000000Z';

export interface FakeWebhookService {
  address: string;
  /** Method name and request, in order. */
  requests: Array<{ method: string; request: unknown }>;
  webhooks: Map<string, registry.Webhook>;
  /** Adds a webhook directly; answers it. */
  add(url: string, extra?: Partial<registry.Webhook>): registry.Webhook;
  close(): Promise<void>;
}

const DELIVERY: registry.Delivery = {
  id: 'msg_2f1c',
  eventId: '0193a1b2-0000-7000-8000-0000000000e1',
  type: 'event.created',
  status: registry.DeliveryStatus.DELIVERY_STATUS_SUCCEEDED,
  attemptCount: 2,
  lastStatusCode: 204,
  lastError: '',
  nextAttemptAt: undefined,
  createdAt: CREATED,
  succeededAt: LATER,
  attempts: [],
};

const PENDING: registry.Delivery = {
  ...DELIVERY,
  id: 'msg_9a0b',
  eventId: '',
  type: 'device.created',
  status: registry.DeliveryStatus.DELIVERY_STATUS_PENDING,
  attemptCount: 0,
  lastStatusCode: undefined,
  nextAttemptAt: LATER,
  succeededAt: undefined,
};

const ATTEMPTS: registry.DeliveryAttempt[] = [
  { at: CREATED, statusCode: 0, durationMs: 15000, error: 'timed out after 15000 ms', responseBody: '' },
  { at: LATER, statusCode: 204, durationMs: 12, error: '', responseBody: 'ok' },
];

/** Starts the server; `add` and `webhooks` let a test arrange what the registry holds. */
export async function startWebhookService(): Promise<FakeWebhookService> {
  const requests: FakeWebhookService['requests'] = [];
  const webhooks = new Map<string, registry.Webhook>();
  let next = 1;
  const add: FakeWebhookService['add'] = (url, extra = {}) => {
    const id = `0193a1b2-0000-7000-8000-${String(next++).padStart(12, '0')}`;
    const webhook: registry.Webhook = { id, url, description: '', filter: undefined, enabled: true, disabledReason: '', createdAt: CREATED, updatedAt: CREATED, ...extra };
    webhooks.set(id, webhook);
    return webhook;
  };
  const server = createGrpcServer({ logger: pino({ level: 'silent' }) });
  server.addService<registry.WebhookServiceServer>(registry.WebhookServiceService, fakeService(requests, webhooks, add));
  const port = await server.listen('127.0.0.1:0');
  return { address: `127.0.0.1:${port}`, requests, webhooks, add, close: () => server.shutdown(1000) };
}

function fakeService(
  requests: FakeWebhookService['requests'],
  webhooks: Map<string, registry.Webhook>,
  add: FakeWebhookService['add'],
): AsyncServiceImpl<registry.WebhookServiceServer> {
  /** Records the call after checking its credential, as the registry's internal-credential check does. */
  const seen = <T>(method: string, request: T, ctx: CallContext): T => {
    if (ctx.metadata.get('authorization')[0] !== `Bearer ${WEBHOOK_CREDENTIAL}`) throw new AppError('UNAUTHENTICATED', 'WebhookService needs the internal credential');
    requests.push({ method, request });
    return request;
  };
  const find = (id: string): registry.Webhook => {
    const webhook = webhooks.get(id);
    if (!webhook) throw new AppError('NOT_FOUND', `webhook ${id} not found`, { field: 'id' });
    return webhook;
  };
  const delivery = (webhookId: string, deliveryId: string): registry.Delivery => {
    find(webhookId);
    const found = [DELIVERY, PENDING].find((d) => d.id === deliveryId);
    if (!found) throw new AppError('NOT_FOUND', `delivery ${deliveryId} not found`, { field: 'delivery_id' });
    return found;
  };
  return {
    async createWebhook(request, ctx) {
      seen('createWebhook', request, ctx);
      if (request.url.includes('boom')) throw new Error('pg: password authentication failed for user "registry"');
      if (!/^https?:\/\//.test(request.url)) throw invalidArgument('url', 'scheme', 'url must be an http or https URL');
      const webhook = add(request.url, { description: request.description, filter: request.filter, enabled: request.enabled ?? true });
      return { webhook, secret: `whsec_${randomBytes(32).toString('base64')}` };
    },
    async listWebhooks(request, ctx) {
      seen('listWebhooks', request, ctx);
      const from = request.pageToken === '' ? 0 : Number(request.pageToken.replace(/^p/, ''));
      if (!Number.isInteger(from)) throw invalidArgument('page_token', 'token', 'page_token is not a token of this list');
      const size = request.pageSize || 100;
      const all = [...webhooks.values()];
      return { webhooks: all.slice(from, from + size), nextPageToken: from + size < all.length ? `p${from + size}` : '' };
    },
    getWebhook: async (request, ctx) => ({ webhook: find(seen('getWebhook', request, ctx).id) }),
    async updateWebhook(request, ctx) {
      const webhook = find(seen('updateWebhook', request, ctx).id);
      const changed: registry.Webhook = {
        ...webhook,
        ...(request.url !== undefined ? { url: request.url } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.filter !== undefined ? { filter: request.filter } : {}),
        ...(request.enabled !== undefined ? { enabled: request.enabled, disabledReason: request.enabled ? '' : 'disabled by an admin' } : {}),
        updatedAt: LATER,
      };
      webhooks.set(webhook.id, changed);
      return { webhook: changed };
    },
    async deleteWebhook(request, ctx) {
      const webhook = find(seen('deleteWebhook', request, ctx).id);
      webhooks.delete(webhook.id);
      return { webhook };
    },
    rotateWebhookSecret: async (request, ctx) => (find(seen('rotateWebhookSecret', request, ctx).id), { secret: `whsec_${randomBytes(32).toString('base64')}` }),
    async listDeliveries(request, ctx) {
      find(seen('listDeliveries', request, ctx).webhookId);
      const all = [PENDING, DELIVERY].filter((d) => (request.status === 0 || d.status === request.status) && (request.eventId === '' || d.eventId === request.eventId));
      return { deliveries: all.slice(0, request.pageSize || 100), nextPageToken: request.pageSize === 1 && all.length > 1 ? 'd1' : '' };
    },
    async getDelivery(request, ctx) {
      seen('getDelivery', request, ctx);
      return { delivery: { ...delivery(request.webhookId, request.deliveryId), attempts: ATTEMPTS } };
    },
    async retryDelivery(request, ctx) {
      seen('retryDelivery', request, ctx);
      const found = delivery(request.webhookId, request.deliveryId);
      return { delivery: { ...found, status: registry.DeliveryStatus.DELIVERY_STATUS_PENDING, nextAttemptAt: LATER, succeededAt: undefined } };
    },
    recoverDeliveries: async (request, ctx) => (find(seen('recoverDeliveries', request, ctx).webhookId), { recovered: '3' }),
  };
}
