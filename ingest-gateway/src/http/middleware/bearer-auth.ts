import type { GatewayMiddleware } from '../context.js';
import type { Authenticator } from '../../tokens/authenticator.js';

/** The authenticator as Koa middleware, for every route that needs it (the token into ctx.state.token). */
export function bearerAuth(authenticate: Authenticator): GatewayMiddleware {
  return (ctx, next) => {
    ctx.state.token = authenticate(ctx.req);
    return next();
  };
}
