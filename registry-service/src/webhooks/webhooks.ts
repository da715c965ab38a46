import { AppError, quoteName } from '@dynamic-events/proto';
import type pg from 'pg';
import { deleteWebhook, findWebhook, insertWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../db/queries/webhooks.js';
import { pageSizeOf } from '../reads/list-filters.js';
import { createTokenCodec } from '../reads/page-token.js';
import { isUuid, uuidv7 } from '../uuid-v7.js';
import type { CommitHorizon } from '../watch/commit-horizon.js';
import type { AddressGuard } from './address-guard.js';
import { newWebhookSecret, type SecretBox } from './secret-box.js';
import { checkDescription, checkFilter, checkWebhookUrl } from './webhook-rules.js';
import type { WebhookChange, WebhookDraft, WebhookRecord } from './webhook-model.js';

/** How long a rotated-out secret keeps signing beside the new one. */
const SECRET_OVERLAP_SECONDS = 86_400;

/** How long a create waits for the writes in flight to finish before its cursor starts behind them. */
const CURSOR_START_WAIT_MS = 2000;

/** Webhook management (WebhookService's Create/List/Get/Update/Delete/RotateSecret). */
export interface Webhooks {
  create(draft: WebhookDraft): Promise<{ webhook: WebhookRecord; secret: string }>;
  list(pageSize: number, pageToken: string): Promise<{ webhooks: WebhookRecord[]; nextPageToken: string }>;
  get(id: string): Promise<WebhookRecord>;
  update(id: string, change: WebhookChange): Promise<WebhookRecord>;
  delete(id: string): Promise<WebhookRecord>;
  rotateSecret(id: string): Promise<string>;
}

export function webhookNotFound(id: string): AppError {
  const shown = isUuid(id) ? id : quoteName(id.slice(0, 64), '"');
  return new AppError('NOT_FOUND', `webhook ${shown} not found`, { field: 'id' });
}

interface WebhookDeps {
  pool: pg.Pool;
  guard: AddressGuard;
  /** Undefined without WEBHOOK_SECRET_KEY: webhooks cannot be created or rotated. */
  secrets: SecretBox | undefined;
  /** Called after every change, so this replica's sender sees it at once. */
  changed: () => void;
  /** Where a new webhook's cursor starts (commit-horizon.ts). */
  horizon: Pick<CommitHorizon, 'refresh'>;
}

const noKey = () => new AppError('FAILED_PRECONDITION', 'webhooks need WEBHOOK_SECRET_KEY set on the registry', { rule: 'secret-key' });

export function createWebhooks(deps: WebhookDeps): Webhooks {
  const { pool, guard } = deps;
  const pages = createTokenCodec('webhooks', 'all', 2);
  const get = async (id: string) => {
    const webhook = isUuid(id) ? await findWebhook(pool, id) : undefined;
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  };
  const after = <T>(value: T): T => {
    deps.changed();
    return value;
  };
  return {
    async create(draft) {
      if (!deps.secrets) throw noKey();
      const row = { id: uuidv7(), url: checkWebhookUrl(draft.url, guard), description: checkDescription(draft.description), filter: checkFilter(draft.filter), enabled: draft.enabled ?? true };
      const secret = newWebhookSecret();
      // The cursor starts at the horizon, not at the last number handed out: a write holds its number
      // a moment before it commits, and one committing after this insert must still be delivered.
      // The create waits for those writes, so it starts behind none of the history before it; a long
      // transaction elsewhere cuts the wait short, and the webhook also gets the changes since the horizon.
      const fannedThrough = await deps.horizon.refresh(CURSOR_START_WAIT_MS);
      const webhook = await insertWebhook(pool, { ...row, secretSealed: deps.secrets.seal(row.id, secret), fannedThrough });
      return after({ webhook, secret });
    },
    async list(pageSize, pageToken) {
      const limit = pageSizeOf(pageSize);
      const position = pageToken === '' ? undefined : pages.decode(pageToken, 'page_token');
      const rows = await listWebhooks(pool, limit + 1, position && { createdUs: position[0] ?? '', id: position[1] ?? '' });
      const webhooks = rows.slice(0, limit);
      const last = webhooks.at(-1);
      return { webhooks, nextPageToken: rows.length > limit && last ? pages.encode([last.createdAtMicros.toString(), last.id]) : '' };
    },
    get,
    async update(id, change) {
      const checked = {
        ...(change.url !== undefined ? { url: checkWebhookUrl(change.url, guard) } : {}),
        ...(change.description !== undefined ? { description: checkDescription(change.description) } : {}),
        ...(change.filter !== undefined ? { filter: checkFilter(change.filter) } : {}),
        ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
      };
      const updated = isUuid(id) ? await updateWebhook(pool, id, checked) : undefined;
      if (!updated) throw webhookNotFound(id);
      return after(updated);
    },
    async delete(id) {
      const deleted = isUuid(id) ? await deleteWebhook(pool, id) : undefined;
      if (!deleted) throw webhookNotFound(id);
      return after(deleted);
    },
    async rotateSecret(id) {
      if (!deps.secrets) throw noKey();
      await get(id);
      const secret = newWebhookSecret();
      if (!(await rotateWebhookSecret(pool, id, deps.secrets.seal(id, secret), SECRET_OVERLAP_SECONDS))) throw webhookNotFound(id);
      return after(secret);
    },
  };
}
