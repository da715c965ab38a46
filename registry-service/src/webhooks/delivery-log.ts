import { AppError, invalidArgument, isStorableMicros } from '@dynamic-events/proto';
import type pg from 'pg';
import { findDelivery, listDeliveries, recoverDeliveries, retryDelivery } from '../db/queries/webhook-deliveries.js';
import { findWebhook } from '../db/queries/webhooks.js';
import { createTokenCodec, scopeOf } from '../reads/page-token.js';
import { isUuid } from '../uuid-v7.js';
import type { DeliveryRecord, DeliveryStatus } from './webhook-model.js';
import { pageSizeOf } from '../reads/list-filters.js';
import { webhookNotFound } from './webhooks.js';

interface DeliveryListQuery {
  webhookId: string;
  status: DeliveryStatus | undefined;
  eventId: string;
  pageSize: number;
  pageToken: string;
}

/** A webhook's delivery log and its replay (WebhookService's ListDeliveries … RecoverDeliveries). */
export interface DeliveryLog {
  list(q: DeliveryListQuery): Promise<{ deliveries: DeliveryRecord[]; nextPageToken: string }>;
  get(webhookId: string, id: string): Promise<DeliveryRecord>;
  retry(webhookId: string, id: string): Promise<DeliveryRecord>;
  recover(webhookId: string, sinceMicros: bigint | undefined): Promise<number>;
}

const deliveryNotFound = (id: string) => new AppError('NOT_FOUND', `delivery ${isUuid(id) ? id : 'with that id'} not found`, { field: 'delivery_id' });

export function createDeliveryLog(deps: { pool: pg.Pool; changed: () => void }): DeliveryLog {
  const { pool } = deps;
  const webhook = async (id: string) => {
    if (!isUuid(id) || !(await findWebhook(pool, id))) throw webhookNotFound(id);
    return id;
  };
  return {
    async list(q) {
      const webhookId = await webhook(q.webhookId);
      if (q.eventId !== '' && !isUuid(q.eventId)) throw invalidArgument('event_id', 'uuid', 'event_id must be an event id (a UUID)');
      const limit = pageSizeOf(q.pageSize, 'limit');
      const pages = createTokenCodec('deliveries', scopeOf([webhookId, q.status ?? '', q.eventId]), 2);
      const place = q.pageToken === '' ? undefined : pages.decode(q.pageToken, 'page_token');
      if (place && !place.every((n) => /^\d{1,18}$/.test(n))) throw invalidArgument('page_token', 'token', 'page_token is malformed');
      const before = place && { seq: place[0] ?? '', position: place[1] ?? '' };
      const rows = await listDeliveries(pool, { webhookId, status: q.status, eventId: q.eventId === '' ? undefined : q.eventId, limit: limit + 1, before });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { deliveries: page.map(({ place: _place, ...d }) => d), nextPageToken: rows.length > limit && last ? pages.encode(last.place) : '' };
    },
    async get(webhookId, id) {
      await webhook(webhookId);
      const found = isUuid(id) ? await findDelivery(pool, webhookId, id) : undefined;
      if (!found) throw deliveryNotFound(id);
      return found;
    },
    async retry(webhookId, id) {
      await webhook(webhookId);
      const retried = isUuid(id) ? await retryDelivery(pool, webhookId, id) : undefined;
      if (!retried) throw deliveryNotFound(id);
      deps.changed();
      return retried;
    },
    async recover(webhookId, sinceMicros) {
      await webhook(webhookId);
      if (sinceMicros === undefined) throw invalidArgument('since', 'required', 'since is required');
      if (!isStorableMicros(sinceMicros)) throw invalidArgument('since', 'range', 'since is out of range');
      const recovered = await recoverDeliveries(pool, webhookId, sinceMicros);
      deps.changed();
      return recovered;
    },
  };
}
