import type { Router } from '@koa/router';
import { LIMITS } from '@dynamic-events/proto';
import type { WebhookClient } from '../../clients/webhooks.js';
import type { GatewayContext, GatewayState } from '../context.js';
import type { Metrics } from '../../metrics.js';
import { adminAuth } from '../middleware/admin-auth.js';
import { readJsonBody } from '../../ingest/json-body.js';
import { jsonBody } from '../middleware/json-body.js';
import { presentDelivery, presentDeliveryWithAttempts, presentWebhook } from '../../api/webhook.js';
import { createWebhookAdminInput, deliveryStatusOf } from '../../webhooks/admin-input.js';
import { pageOf, readParams, type RawQuery } from '../query-params.js';

/** Admin bodies are a url, a description and a filter: 64 KiB is far more than any needs. */
const ADMIN_BODY_BYTES = 64 * 1024;
const PAGING = ['limit', 'page_token'] as const;

/** A routed request's path parameters. */
type Routed = { params: Record<string, string | undefined> };

/** What the webhook admin routes need; without `adminToken` they are not served at all (404). */
interface WebhookAdminDeps {
  adminToken: string | undefined;
  webhooks: WebhookClient;
  metrics: Metrics;
}

/**
 * The webhook admin API over the registry's WebhookService, beside the token admin API and with its
 * credential: POST|GET {base}/settings/dynamic-events/webhooks, GET|PATCH|DELETE …/webhooks/{id},
 * POST …/{id}/secret, GET …/{id}/deliveries[/{delivery_id}], POST …/deliveries/{delivery_id}/retry
 * and POST …/{id}/recover. Bodies and parameters are checked for shape here, values by the registry;
 * both answer 400 naming the field. A secret is answered by create and rotate only, never stored by
 * a cache (no-store).
 */
export function webhookAdminRoutes(router: Router<GatewayState>, base: string, deps: WebhookAdminDeps): void {
  if (deps.adminToken === undefined) return;
  const { webhooks } = deps;
  const auth = adminAuth(deps.adminToken, deps.metrics);
  const input = createWebhookAdminInput();
  const body = jsonBody((req) => readJsonBody(req, { maxBodyBytes: ADMIN_BODY_BYTES, maxDepth: LIMITS.jsonMaxDepth, maxValues: LIMITS.jsonMaxValues, maxImageBytes: 0 }));
  const root = `${base}/settings/dynamic-events/webhooks`;
  const call = (state: GatewayState) => ({ requestId: state.requestId });
  const id = (ctx: Routed) => ctx.params.id ?? '';
  const deliveryId = (ctx: Routed) => ctx.params.delivery_id ?? '';
  const secretAnswer = (ctx: GatewayContext, answer: Record<string, unknown>) => {
    // The secret is in this body only: never logged, listed or shown again.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = answer;
  };

  router.post(root, auth, body, async (ctx) => {
    const { webhook, secret } = await webhooks.create(input.draft(ctx.state.json?.body), call(ctx.state));
    ctx.status = 201;
    ctx.set('Location', `${root}/${encodeURIComponent(webhook.id)}`);
    secretAnswer(ctx, { ...presentWebhook(webhook), secret });
  });
  router.get(root, auth, async (ctx) => {
    const page = await webhooks.list(pageOf(readParams(ctx.query as RawQuery, PAGING)), call(ctx.state));
    ctx.body = { webhooks: page.items.map(presentWebhook), next_page_token: page.nextPageToken };
  });
  router.get(`${root}/:id`, auth, async (ctx) => {
    ctx.body = presentWebhook(await webhooks.get(id(ctx), call(ctx.state)));
  });
  router.patch(`${root}/:id`, auth, body, async (ctx) => {
    ctx.body = presentWebhook(await webhooks.update(id(ctx), input.change(ctx.state.json?.body), call(ctx.state)));
  });
  router.delete(`${root}/:id`, auth, async (ctx) => {
    ctx.body = presentWebhook(await webhooks.remove(id(ctx), call(ctx.state)));
  });
  router.post(`${root}/:id/secret`, auth, async (ctx) => {
    secretAnswer(ctx, { secret: await webhooks.rotateSecret(id(ctx), call(ctx.state)) });
  });
  router.get(`${root}/:id/deliveries`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, ['status', 'event_id', ...PAGING]);
    const query = { status: deliveryStatusOf(params.status), eventId: params.event_id, ...pageOf(params) };
    const page = await webhooks.listDeliveries(id(ctx), query, call(ctx.state));
    ctx.body = { deliveries: page.items.map(presentDelivery), next_page_token: page.nextPageToken };
  });
  router.get(`${root}/:id/deliveries/:delivery_id`, auth, async (ctx) => {
    ctx.body = presentDeliveryWithAttempts(await webhooks.getDelivery(id(ctx), deliveryId(ctx), call(ctx.state)));
  });
  router.post(`${root}/:id/deliveries/:delivery_id/retry`, auth, async (ctx) => {
    const delivery = await webhooks.retryDelivery(id(ctx), deliveryId(ctx), call(ctx.state));
    ctx.status = 202;
    ctx.body = presentDelivery(delivery);
  });
  router.post(`${root}/:id/recover`, auth, body, async (ctx) => {
    const recovered = await webhooks.recover(id(ctx), input.since(ctx.state.json?.body), call(ctx.state));
    ctx.status = 202;
    ctx.body = { recovered };
  });
}
