import { registry } from '@dynamic-events/proto';
import { type AsyncServiceImpl } from '@dynamic-events/proto/runtime';
import type { DeliveryLog } from '../webhooks/delivery-log.js';
import type { Webhooks } from '../webhooks/webhooks.js';
import { fromProtoStatus, sinceMicros, toProtoDelivery, toProtoWebhook, toWebhookChange, toWebhookDraft } from './webhook-mapping.js';

/** WebhookService handlers: requests to domain calls and back; the rules live in the domain. */
export function createWebhookHandlers(deps: { webhooks: Webhooks; deliveries: DeliveryLog }): AsyncServiceImpl<registry.WebhookServiceServer> {
  const { webhooks, deliveries } = deps;
  return {
    async createWebhook(request) {
      const { webhook, secret } = await webhooks.create(toWebhookDraft(request));
      return { webhook: toProtoWebhook(webhook), secret };
    },
    async listWebhooks(request) {
      const page = await webhooks.list(request.pageSize, request.pageToken);
      return { webhooks: page.webhooks.map(toProtoWebhook), nextPageToken: page.nextPageToken };
    },
    async getWebhook(request) {
      return { webhook: toProtoWebhook(await webhooks.get(request.id)) };
    },
    async updateWebhook(request) {
      return { webhook: toProtoWebhook(await webhooks.update(request.id, toWebhookChange(request))) };
    },
    async deleteWebhook(request) {
      return { webhook: toProtoWebhook(await webhooks.delete(request.id)) };
    },
    async rotateWebhookSecret(request) {
      return { secret: await webhooks.rotateSecret(request.id) };
    },
    async listDeliveries(request) {
      const page = await deliveries.list({
        webhookId: request.webhookId,
        status: fromProtoStatus(request.status),
        eventId: request.eventId,
        pageSize: request.pageSize,
        pageToken: request.pageToken,
      });
      return { deliveries: page.deliveries.map(toProtoDelivery), nextPageToken: page.nextPageToken };
    },
    async getDelivery(request) {
      return { delivery: toProtoDelivery(await deliveries.get(request.webhookId, request.deliveryId)) };
    },
    async retryDelivery(request) {
      return { delivery: toProtoDelivery(await deliveries.retry(request.webhookId, request.deliveryId)) };
    },
    async recoverDeliveries(request) {
      return { recovered: String(await deliveries.recover(request.webhookId, sinceMicros(request.since))) };
    },
  };
}
