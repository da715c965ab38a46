/** WebhookService as a test calls it, with the internal credential. */
import { callUnary, createGrpcClient, pollUntil } from '@dynamic-events/proto/runtime';
import { registry } from '@dynamic-events/proto';
import { TEST_INTERNAL_TOKEN } from '../../test/support/servers.js';

export function webhookApi(address: string) {
  const client = createGrpcClient(registry.WebhookServiceClient, address);
  const d = { deadlineMs: 15_000, credential: TEST_INTERNAL_TOKEN };
  return {
    close: () => client.close(),
    create: (request: Partial<registry.CreateWebhookRequest> & { url: string }) =>
      callUnary(client.createWebhook.bind(client), { description: '', filter: undefined, enabled: undefined, ...request }, d),
    get: async (id: string) => (await callUnary(client.getWebhook.bind(client), { id }, d)).webhook!,
    list: (pageSize = 0, pageToken = '') => callUnary(client.listWebhooks.bind(client), { pageSize, pageToken }, d),
    update: async (request: Partial<registry.UpdateWebhookRequest> & { id: string }) =>
      (await callUnary(client.updateWebhook.bind(client), { filter: undefined, ...request }, d)).webhook!,
    delete: async (id: string) => (await callUnary(client.deleteWebhook.bind(client), { id }, d)).webhook!,
    rotate: async (id: string) => (await callUnary(client.rotateWebhookSecret.bind(client), { id }, d)).secret,
    deliveries: (webhookId: string, more: Partial<registry.ListDeliveriesRequest> = {}) =>
      callUnary(client.listDeliveries.bind(client), { webhookId, status: 0, eventId: '', pageSize: 0, pageToken: '', ...more }, d),
    delivery: async (webhookId: string, deliveryId: string) => (await callUnary(client.getDelivery.bind(client), { webhookId, deliveryId }, d)).delivery!,
    retry: async (webhookId: string, deliveryId: string) => (await callUnary(client.retryDelivery.bind(client), { webhookId, deliveryId }, d)).delivery!,
    recover: async (webhookId: string, since: registry.RecoverDeliveriesRequest['since']) =>
      Number((await callUnary(client.recoverDeliveries.bind(client), { webhookId, since }, d)).recovered),
  };
}
export type WebhookApi = ReturnType<typeof webhookApi>;

/** Polls until `check` holds (a delivery's state written after its attempt) and answers what was read. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let last: T | undefined;
  const shown = () => JSON.stringify(last, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  await pollUntil('the condition', async () => check((last = await read())), { timeoutMs, intervalMs: 50 }).catch((err: Error) => {
    throw new Error(`${err.message}; last read: ${shown()}`);
  });
  return last as T;
}
