import type { Router } from '@koa/router';
import { LIMITS } from '@dynamic-events/proto';
import type { TokenClient } from '../../clients/tokens.js';
import type { GatewayState } from '../context.js';
import type { Metrics } from '../../metrics.js';
import { adminAuth } from '../middleware/admin-auth.js';
import { readJsonBody } from '../../ingest/json-body.js';
import { jsonBody } from '../middleware/json-body.js';
import { presentToken } from '../../api/token.js';
import { createTokenAdminInput } from '../../tokens/admin-input.js';
import type { TokenSource } from '../../tokens/token-sync.js';
import { instanceAccess } from '../../tokens/instance-access.js';

/** Admin bodies are a name and a policy: 64 KiB is far more than any needs. */
const ADMIN_BODY_BYTES = 64 * 1024;

/** What the admin routes need; without `adminToken` they are not served at all (404). */
interface TokenAdminDeps {
  adminToken: string | undefined;
  tokens: TokenClient;
  /** This gateway's copy of the tokens: refreshed after each change, before its answer. */
  source: TokenSource;
  /** DYNAMIC_EVENTS_TOKEN is set on this gateway: a token is required whatever the setting. */
  bootstrap: boolean;
  metrics: Metrics;
}

/**
 * The token admin API for operators and the settings UI, over the registry's TokenService:
 * POST|GET {base}/settings/dynamic-events/tokens, GET|PATCH|DELETE …/tokens/{id} (DELETE revokes),
 * GET|PATCH {base}/settings/dynamic-events ({"require_token"}, answered with the `access` it leaves
 * this gateway in: instance-access.ts). Bodies are checked for shape here,
 * values by the registry (each rule has one owner); both answer 400 naming the field. A change is
 * answered once this gateway's copy of the tokens has it: the next request here sees it.
 */
export function tokenAdminRoutes(router: Router<GatewayState>, base: string, deps: TokenAdminDeps): void {
  if (deps.adminToken === undefined) return;
  const { tokens, source } = deps;
  const auth = adminAuth(deps.adminToken, deps.metrics);
  const input = createTokenAdminInput();
  const body = jsonBody((req) => readJsonBody(req, { maxBodyBytes: ADMIN_BODY_BYTES, maxDepth: LIMITS.jsonMaxDepth, maxValues: LIMITS.jsonMaxValues, maxImageBytes: 0 }));
  const settings = `${base}/settings/dynamic-events`;
  const call = (state: GatewayState) => ({ requestId: state.requestId });
  /** The registry's answer to a change, once this gateway applied the change. */
  const applied = async <T>(change: Promise<T>): Promise<T> => {
    const answer = await change;
    await source.refresh();
    return answer;
  };

  router.post(`${settings}/tokens`, auth, body, async (ctx) => {
    const { token, secret } = await applied(tokens.create(input.draft(ctx.state.json?.body), call(ctx.state)));
    ctx.status = 201;
    ctx.set('Location', `${settings}/tokens/${encodeURIComponent(token.id)}`);
    // The secret is in this body only: never stored, logged or shown again.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...presentToken(token), token: secret };
  });
  router.get(`${settings}/tokens`, auth, async (ctx) => {
    ctx.body = { tokens: (await tokens.list(call(ctx.state))).map(presentToken) };
  });
  router.get(`${settings}/tokens/:id`, auth, async (ctx) => {
    ctx.body = presentToken(await tokens.get(ctx.params.id ?? '', call(ctx.state)));
  });
  router.patch(`${settings}/tokens/:id`, auth, body, async (ctx) => {
    ctx.body = presentToken(await applied(tokens.update(ctx.params.id ?? '', input.change(ctx.state.json?.body), call(ctx.state))));
  });
  router.delete(`${settings}/tokens/:id`, auth, async (ctx) => {
    ctx.body = presentToken(await applied(tokens.revoke(ctx.params.id ?? '', call(ctx.state))));
  });
  /** The setting and the access it leaves: read from this gateway's copy once it is as fresh as the setting. */
  const settingsAnswer = (requireToken: boolean) => ({ require_token: requireToken, access: instanceAccess(source.current(), requireToken, deps.bootstrap) });
  router.get(settings, auth, async (ctx) => {
    ctx.body = settingsAnswer(await applied(tokens.getRequireToken(call(ctx.state))));
  });
  router.patch(settings, auth, body, async (ctx) => {
    ctx.body = settingsAnswer(await applied(tokens.setRequireToken(input.requireToken(ctx.state.json?.body), call(ctx.state))));
  });
}
