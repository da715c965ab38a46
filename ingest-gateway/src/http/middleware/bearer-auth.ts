import type { GatewayMiddleware } from '../context.js';
import { bearerTokenOf, type Authenticator } from '../../tokens/authenticator.js';

/**
 * The authenticator as Koa middleware, for the read routes (the token into ctx.state.token). With
 * `isAdmin` (ADMIN_TOKEN configured) the admin credential is accepted first, as a reader of
 * everything: the settings console reads with it. It is never a registry token, so no token policy,
 * read scope or revocation applies to it; anything else goes to the authenticator, which counts its
 * refusals. The POST does not pass here: the admin credential never posts events.
 */
export function bearerAuth(authenticate: Authenticator, isAdmin?: (presented: string) => boolean): GatewayMiddleware {
  return (ctx, next) => {
    const presented = isAdmin === undefined ? undefined : bearerTokenOf(ctx.req);
    if (presented !== undefined && isAdmin?.(presented)) {
      ctx.state.adminReader = true;
      return next();
    }
    ctx.state.token = authenticate(ctx.req);
    return next();
  };
}
