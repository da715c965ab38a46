import { callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { registry } from '@dynamic-events/proto';
import type { WebhookCommand } from './webhook-args.js';
import { deliveryJson, toProtoFilter, toProtoStatus, webhookJson } from './webhook-json.js';

/** An operator waits this long at most; the registry answers these calls in milliseconds. */
const DEADLINE_MS = 10_000;

/**
 * Runs one webhooks command against WebhookService at `address`, presenting `credential`
 * (REGISTRY_INTERNAL_TOKEN; undefined: none, and the registry refuses), and resolves with the JSON
 * to print, in the HTTP API's shapes; a failed call rejects with the registry's AppError.
 */
export async function runWebhookCommand(address: string, command: WebhookCommand, credential: string | undefined): Promise<unknown> {
  const client = createGrpcClient(registry.WebhookServiceClient, address);
  const settings = { deadlineMs: DEADLINE_MS, credential };
  const call = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[0], request: Req) => callUnary(method.bind(client), request, settings);
  const filter = (command: { filter?: Parameters<typeof toProtoFilter>[0] }) => command.filter && toProtoFilter(command.filter);
  try {
    switch (command.kind) {
      case 'webhooks create': {
        const request = { url: command.url, description: command.description ?? '', filter: filter(command), enabled: command.enabled };
        const { webhook, secret } = await call(client.createWebhook, request);
        // The secret first, so `… | head -3` still shows it: it is answered this once.
        return { secret, ...webhookJson(webhook) };
      }
      case 'webhooks list': {
        const response = await call(client.listWebhooks, { pageSize: command.limit ?? 0, pageToken: command.pageToken ?? '' });
        return { webhooks: response.webhooks.map(webhookJson), next_page_token: response.nextPageToken || null };
      }
      case 'webhooks get':
        return webhookJson((await call(client.getWebhook, { id: command.id })).webhook);
      case 'webhooks update': {
        const request = { id: command.id, url: command.url, description: command.description, filter: filter(command), enabled: command.enabled };
        return webhookJson((await call(client.updateWebhook, request)).webhook);
      }
      case 'webhooks delete':
        return webhookJson((await call(client.deleteWebhook, { id: command.id })).webhook);
      case 'webhooks deliveries': {
        const request = { webhookId: command.id, status: toProtoStatus(command.status), eventId: command.eventId ?? '', pageSize: command.limit ?? 0, pageToken: command.pageToken ?? '' };
        const response = await call(client.listDeliveries, request);
        return { deliveries: response.deliveries.map(deliveryJson), next_page_token: response.nextPageToken || null };
      }
      case 'webhooks retry':
        return deliveryJson((await call(client.retryDelivery, { webhookId: command.id, deliveryId: command.deliveryId })).delivery);
      case 'webhooks recover':
        return { recovered: Number((await call(client.recoverDeliveries, { webhookId: command.id, since: command.since })).recovered) };
    }
  } finally {
    client.close();
  }
}
