import type { Router } from '@koa/router';
import { registerReadinessMetric } from '@dynamic-events/proto/runtime';
import type { Registry } from 'prom-client';
import type { MediaClient } from '../../clients/media.js';
import type { RegistryClient } from '../../clients/registry.js';
import type { GatewayState } from '../context.js';
import type { TokenSource } from '../../tokens/token-sync.js';

/** What the health routes need: the dependencies to probe and the shutdown signal. */
interface HealthRouteDeps {
  registry: Pick<RegistryClient, 'isServing'>;
  media: Pick<MediaClient, 'isServing'>;
  /** The token copy: not ready until the registry first answered (only then can tokens be checked). */
  tokens?: Pick<TokenSource, 'current'>;
  /** Aborted when shutdown starts: readiness turns false before the server stops accepting. */
  draining: AbortSignal;
  /** Deadline of each dependency's health check. */
  probeDeadlineMs: number;
  /** Where service_ready goes: the same check as /readyz, run at each scrape. */
  metricsRegistry: Registry;
}

/** What keeps the gateway from being ready ("shutting down", "registry", "media", "tokens not loaded"); empty: ready. */
function createReadinessCheck(deps: HealthRouteDeps): () => Promise<string[]> {
  const probe = (dependency: Pick<RegistryClient, 'isServing'>) => dependency.isServing(deps.probeDeadlineMs).catch(() => false);
  return async () => {
    if (deps.draining.aborted) return ['shutting down'];
    const [registryUp, mediaUp] = await Promise.all([probe(deps.registry), probe(deps.media)]);
    const tokensLoaded = deps.tokens === undefined || deps.tokens.current() !== undefined;
    return [registryUp ? undefined : 'registry', mediaUp ? undefined : 'media', tokensLoaded ? undefined : 'tokens not loaded'].filter((name) => name !== undefined);
  };
}

/** /healthz (process up) and /readyz (registry and media SERVING, tokens loaded, not draining); /metrics has its own port. */
export function healthRoutes(router: Router<GatewayState>, deps: HealthRouteDeps): void {
  const failing = createReadinessCheck(deps);
  registerReadinessMetric(deps.metricsRegistry, async () => (await failing()).length === 0);

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const reasons = await failing();
    if (reasons.length > 0) {
      ctx.status = 503;
      ctx.body = { error: `not ready: ${reasons.join(', ')}` };
      return;
    }
    ctx.body = { status: 'ready' };
  });
}
