import { callUnary, createGrpcClient, type Interceptor } from '@dynamic-events/proto/runtime';
import { registry } from '@dynamic-events/proto';
import type { CallOptions, Instant, Page, PageQuery } from '../model.js';
import type { DeliveryQuery, DeliveryRecord, WebhookChange, WebhookDraft, WebhookRecord } from '../webhooks/webhook-model.js';
import { toDeliveryRecord, toProtoFilter, toProtoStatus, toWebhookRecord } from './webhook-mapping.js';

/** The registry's WebhookService as the gateway uses it; failures reject with AppError. */
export interface WebhookClient {
  create(draft: WebhookDraft, call: CallOptions): Promise<{ webhook: WebhookRecord; secret: string }>;
  list(page: PageQuery, call: CallOptions): Promise<Page<WebhookRecord>>;
  get(id: string, call: CallOptions): Promise<WebhookRecord>;
  update(id: string, change: WebhookChange, call: CallOptions): Promise<WebhookRecord>;
  remove(id: string, call: CallOptions): Promise<WebhookRecord>;
  rotateSecret(id: string, call: CallOptions): Promise<string>;
  listDeliveries(webhookId: string, query: DeliveryQuery, call: CallOptions): Promise<Page<DeliveryRecord>>;
  getDelivery(webhookId: string, deliveryId: string, call: CallOptions): Promise<DeliveryRecord>;
  retryDelivery(webhookId: string, deliveryId: string, call: CallOptions): Promise<DeliveryRecord>;
  /** Failed deliveries created since `since` set to pending again: answers how many. */
  recover(webhookId: string, since: Instant, call: CallOptions): Promise<number>;
  close(): void;
}

interface WebhookClientOptions {
  deadlineMs: number;
  /** REGISTRY_INTERNAL_TOKEN, presented with every call (the registry refuses WebhookService calls without it). */
  credential: string;
  interceptors?: Interceptor[];
}

const nextToken = (token: string): string | null => (token === '' ? null : token);

/** Creates the WebhookService client (its own channel to the registry's address). */
export function createWebhookClient(address: string, options: WebhookClientOptions): WebhookClient {
  const client = createGrpcClient(registry.WebhookServiceClient, address, { interceptors: options.interceptors });
  const { credential } = options;
  const settings = (call: CallOptions) => ({ deadlineMs: options.deadlineMs, requestId: call.requestId, credential });

  return {
    async create(draft, call) {
      const request = { url: draft.url, description: draft.description ?? '', filter: draft.filter && toProtoFilter(draft.filter), enabled: draft.enabled };
      const response = await callUnary(client.createWebhook.bind(client), request, settings(call));
      return { webhook: toWebhookRecord(response.webhook), secret: response.secret };
    },
    async list(page, call) {
      const response = await callUnary(client.listWebhooks.bind(client), { pageSize: page.limit, pageToken: page.pageToken }, settings(call));
      return { items: response.webhooks.map(toWebhookRecord), nextPageToken: nextToken(response.nextPageToken) };
    },
    async get(id, call) {
      return toWebhookRecord((await callUnary(client.getWebhook.bind(client), { id }, settings(call))).webhook);
    },
    async update(id, change, call) {
      const request = { id, url: change.url, description: change.description, filter: change.filter && toProtoFilter(change.filter), enabled: change.enabled };
      return toWebhookRecord((await callUnary(client.updateWebhook.bind(client), request, settings(call))).webhook);
    },
    async remove(id, call) {
      return toWebhookRecord((await callUnary(client.deleteWebhook.bind(client), { id }, settings(call))).webhook);
    },
    async rotateSecret(id, call) {
      return (await callUnary(client.rotateWebhookSecret.bind(client), { id }, settings(call))).secret;
    },
    async listDeliveries(webhookId, query, call) {
      const request = { webhookId, status: toProtoStatus(query.status), eventId: query.eventId ?? '', pageSize: query.limit, pageToken: query.pageToken };
      const response = await callUnary(client.listDeliveries.bind(client), request, settings(call));
      return { items: response.deliveries.map(toDeliveryRecord), nextPageToken: nextToken(response.nextPageToken) };
    },
    async getDelivery(webhookId, deliveryId, call) {
      return toDeliveryRecord((await callUnary(client.getDelivery.bind(client), { webhookId, deliveryId }, settings(call))).delivery);
    },
    async retryDelivery(webhookId, deliveryId, call) {
      return toDeliveryRecord((await callUnary(client.retryDelivery.bind(client), { webhookId, deliveryId }, settings(call))).delivery);
    },
    async recover(webhookId, since, call) {
      return Number((await callUnary(client.recoverDeliveries.bind(client), { webhookId, since }, settings(call))).recovered);
    },
    close: () => client.close(),
  };
}
