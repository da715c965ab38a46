import type { Router } from '@koa/router';
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
}

/** /healthz (process up) and /readyz (registry and media SERVING, tokens loaded, not draining); /metrics has its own port. */
export function healthRoutes(router: Router<GatewayState>, deps: HealthRouteDeps): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    if (deps.draining.aborted) {
      ctx.status = 503;
      ctx.body = { error: 'not ready: shutting down' };
      return;
    }
    const probe = (dependency: Pick<RegistryClient, 'isServing'>) => dependency.isServing(deps.probeDeadlineMs).catch(() => false);
    const [registryUp, mediaUp] = await Promise.all([probe(deps.registry), probe(deps.media)]);
    const tokensLoaded = deps.tokens === undefined || deps.tokens.current() !== undefined;
    const failing = [registryUp ? undefined : 'registry', mediaUp ? undefined : 'media', tokensLoaded ? undefined : 'tokens not loaded'].filter((name) => name !== undefined);
    if (failing.length > 0) {
      ctx.status = 503;
      ctx.body = { error: `not ready: ${failing.join(', ')}` };
      return;
    }
    ctx.body = { status: 'ready' };
  });
}
