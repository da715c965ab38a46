import { METHODS, type RequestListener } from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import { escapeUnsafe } from '@dynamic-events/proto';
import type { Logger, StreamBudget } from '@dynamic-events/proto/runtime';
import { isClientFault } from './client-faults.js';
import type { MediaClient } from '../clients/media.js';
import type { TokenClient } from '../clients/tokens.js';
import type { WebhookClient } from '../clients/webhooks.js';
import type { RegistryClient } from '../clients/registry.js';
import type { GatewayConfig } from '../config.js';
import type { GatewayContext, GatewayMiddleware, GatewayState } from './context.js';
import type { Metrics } from '../metrics.js';
import { accessLog } from './middleware/access-log.js';
import { createAuthenticator } from '../tokens/authenticator.js';
import { createAccessWatch } from '../tokens/access-watch.js';
import { bearerAuth } from './middleware/bearer-auth.js';
import { createAdminMatch, refuseAdminOnPost } from '../tokens/admin-credential.js';
import type { ConsoleBundle } from './console-bundle.js';
import { consoleHeaders, consoleRoutes } from './routes/console.js';
import { errors } from './middleware/errors.js';
import { checkMatchedRoute } from './matched-route.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { requestId } from './middleware/request-id.js';
import { requireHost } from './middleware/require-host.js';
import { jsonHeaders } from './middleware/json-headers.js';
import { closeWhenDraining } from './middleware/close-when-draining.js';
import { createFastPost } from './fast-post.js';
import { createDynamicEventPost, dynamicEventRoutes, type DynamicEventPost } from './routes/dynamic-events.js';
import { batchRoutes, createBatchPost } from './routes/dynamic-events-batch.js';
import { healthRoutes } from './routes/health.js';
import { mediaRoutes } from './routes/media.js';
import { listRoutes } from './routes/lists.js';
import { countRoutes } from './routes/counts.js';
import { readRoutes } from './routes/reads.js';
import { streamRoutes } from './routes/stream.js';
import { createStreamCaps } from '../watch/stream-caps.js';
import { tokenAdminRoutes } from './routes/token-admin.js';
import { webhookAdminRoutes } from './routes/webhook-admin.js';
import type { TokenSource } from '../tokens/token-sync.js';
import type { RateLimiter } from '../tokens/rate-limit.js';

/** Everything the HTTP app needs; tests pass fakes for the clients. */
export interface AppDeps {
  config: Pick<
    GatewayConfig,
    'platformSegment' | 'publicBaseUrl' | 'dynamicEventsToken' | 'maxBodyBytes' | 'maxImageBytes' | 'maxInflightBodyBytes' | 'maxStreams' | 'maxStreamsPerToken' | 'maxStreamsPerClient'
  > &
    Partial<Pick<GatewayConfig, 'adminToken' | 'allowedHosts' | 'batchMaxEvents' | 'occurredAtMaxSkewSeconds'>>;
  logger: Logger;
  registry: RegistryClient;
  media: MediaClient;
  /** The registry's TokenService (admin API) and the gateway's copy of the tokens (auth); omitted: bootstrap token only. */
  tokens?: { client: TokenClient; source: TokenSource };
  /** The registry's WebhookService (the webhook admin API, served with ADMIN_TOKEN); omitted: not served. */
  webhooks?: WebhookClient;
  /** Tokens' rate limits (rate-limit.ts); omitted: none applied. */
  limitRate?: RateLimiter;
  metrics: Metrics;
  /** Aborted when shutdown starts: /readyz answers 503 and responses close their connection. */
  draining?: AbortSignal;
  /** Deadline of each readiness probe of registry and media (default 2000 ms). */
  probeDeadlineMs?: number;
  /** The settings console's build, read at start (console-bundle.ts); omitted: answered 503 as not built. */
  console?: ConsoleBundle;
  /** Bytes SSE responses may hold for their clients (default: sse-room.ts's bounds); tests make it small. */
  sseBudget?: StreamBudget;
}

/** Every route the gateway serves, as method and path (`:name` parameters): the OpenAPI test compares them. */
export function routeTable(deps: AppDeps): Array<{ method: string; path: string }> {
  return buildRouter(deps, deps.draining ?? new AbortController().signal, createPost(deps)).stack.flatMap((layer) =>
    layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: String(layer.path) })),
  );
}

/**
 * The gateway's request listener (for node:http's createServer): POST {base}/dynamic-events at its
 * exact path takes the fast path, everything else the Koa app. Both share the POST's steps and its
 * body budget. It never listens: main.ts or a test does.
 */
export function createRequestHandler(deps: AppDeps): RequestListener {
  const post = createPost(deps);
  const fast = createFastPost(post, { logger: deps.logger, metrics: deps.metrics, draining: deps.draining ?? new AbortController().signal, allowedHosts: deps.config.allowedHosts });
  const koa = createApp(deps, post).callback();
  return (req, res) => {
    if (!fast(req, res)) void koa(req, res);
  };
}

/** The public API's base path: `/api/{PLATFORM_SEGMENT}/dh`. */
const apiBase = (deps: AppDeps): string => `/api/${deps.config.platformSegment}/dh`;

/** The console is served with the admin API it calls: both need ADMIN_TOKEN and the TokenService. */
const consoleServed = (deps: AppDeps): boolean => deps.tokens !== undefined && deps.config.adminToken !== undefined;

/** The POST's steps, built once: the fast path and the Koa route must share one body budget. */
function createPost(deps: AppDeps): DynamicEventPost {
  return createDynamicEventPost({
    base: apiBase(deps),
    authenticate: refuseAdminOnPost(
      createAuthenticator({ token: deps.config.dynamicEventsToken, tokens: deps.tokens?.source, metrics: deps.metrics }),
      deps.config.adminToken,
      deps.metrics,
    ),
    registry: deps.registry,
    media: deps.media,
    maxBodyBytes: deps.config.maxBodyBytes,
    maxImageBytes: deps.config.maxImageBytes,
    maxInflightBodyBytes: deps.config.maxInflightBodyBytes,
    publicBaseUrl: deps.config.publicBaseUrl,
    occurredAtMaxSkewSeconds: deps.config.occurredAtMaxSkewSeconds ?? 300,
    limitRate: deps.limitRate,
  });
}

/** Builds the Koa app (errors middleware first) serving every route, the POST included. */
function createApp(deps: AppDeps, post: DynamicEventPost = createPost(deps)): Koa<GatewayState> {
  // Metrics label requests by the route pattern the router matched: fail here if it moved.
  checkMatchedRoute();
  const app = new Koa<GatewayState>();
  const draining = deps.draining ?? new AbortController().signal;
  const router = buildRouter(deps, draining, post);

  // Only failures after the response started (a media stream breaking mid-body, a client gone) get
  // here. A client that went away already has its request line (status 499): nothing more to say.
  app.on('error', (err: unknown, ctx?: { state?: Partial<GatewayState> }) => {
    if (isClientFault(err)) return;
    deps.logger.error({ err, requestId: ctx?.state?.requestId }, 'response failed after headers were sent');
  });

  app.use(errors(deps));
  app.use(requestId());
  app.use(accessLog(deps));
  app.use(httpMetrics(deps));
  app.use(jsonHeaders());
  app.use(requireHost(deps.config.allowedHosts));
  app.use(closeWhenDraining(draining));
  if (consoleServed(deps)) app.use(consoleHeaders(apiBase(deps)));
  app.use(jsonFallbacks());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** The routes: the public API under /api/{segment}/dh, and the probes. */
function buildRouter(deps: AppDeps, draining: AbortSignal, post: DynamicEventPost): Router<GatewayState> {
  // Every method Node parses is known to the router, so a known path answers any other method 405
  // with Allow (TRACE, PROPFIND...), as the README says, rather than 501 "not implemented".
  const router = new Router<GatewayState>({ methods: METHODS });
  const base = apiBase(deps);
  const adminToken = deps.config.adminToken;
  const auth = bearerAuth(post.authenticate, adminToken === undefined ? undefined : createAdminMatch(adminToken));
  dynamicEventRoutes(router, post);
  const { maxBodyBytes, maxImageBytes, batchMaxEvents = 1000 } = deps.config;
  batchRoutes(router, post, createBatchPost(post, { maxEvents: batchMaxEvents, maxBodyBytes, maxImageBytes, limitRate: deps.limitRate, registry: deps.registry, logger: deps.logger, metrics: deps.metrics }));
  // Before the single reads: "stream" must not be taken for an event id.
  const access = createAccessWatch({ bootstrap: deps.config.dynamicEventsToken !== undefined, tokens: deps.tokens?.source });
  const caps = createStreamCaps(deps.config, (open) => deps.metrics.eventStreams.set(open));
  streamRoutes(router, base, { auth, registry: deps.registry, access, logger: deps.logger, draining, budget: deps.sseBudget, caps });
  listRoutes(router, base, { auth, registry: deps.registry });
  // Before the single reads: "counts" must not be taken for an event id.
  countRoutes(router, base, { auth, registry: deps.registry });
  readRoutes(router, base, { auth, registry: deps.registry });
  mediaRoutes(router, base, { media: deps.media });
  // Before the admin routes: a browser's GET of the admin API's settings path is sent to the console.
  if (consoleServed(deps)) consoleRoutes(router, base, { bundle: deps.console });
  if (deps.tokens) tokenAdminRoutes(router, base, { adminToken, tokens: deps.tokens.client, source: deps.tokens.source, bootstrap: deps.config.dynamicEventsToken !== undefined, metrics: deps.metrics });
  if (deps.webhooks) webhookAdminRoutes(router, base, { adminToken, webhooks: deps.webhooks, metrics: deps.metrics });
  healthRoutes(router, { registry: deps.registry, media: deps.media, tokens: deps.tokens?.source, draining, probeDeadlineMs: deps.probeDeadlineMs ?? 2000, metricsRegistry: deps.metrics.registry });
  return router;
}

/**
 * The router leaves 404/405/501 without a body: give them the spec's `{"error"}` shape. Its
 * OPTIONS answer (an empty text body) becomes 204, keeping the Allow header.
 */
function jsonFallbacks(): GatewayMiddleware {
  const messages: Record<number, (ctx: GatewayContext) => string> = {
    // The path is the caller's: escaped, so it cannot carry a bidi override or a line into the message.
    404: (ctx) => `no route for ${ctx.method} ${escapeUnsafe(ctx.path)}`,
    405: (ctx) => `method ${ctx.method} not allowed for ${escapeUnsafe(ctx.path)} (allowed: ${ctx.response.get('Allow')})`,
    501: (ctx) => `method ${ctx.method} not implemented`,
  };
  return async (ctx, next) => {
    await next();
    if (ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.body === '') {
      ctx.status = 204;
      return;
    }
    const message = messages[ctx.status];
    if (message === undefined || (ctx.body !== undefined && ctx.body !== null)) return;
    const status = ctx.status;
    ctx.body = { error: message(ctx) };
    // Koa turns the status into 200 when a body is set on a status nobody set explicitly.
    ctx.status = status;
  };
}
