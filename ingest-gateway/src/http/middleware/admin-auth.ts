import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../../metrics.js';
import { createAdminCheck } from '../../tokens/admin-credential.js';

/** The admin credential check as Koa middleware, in front of every admin route. */
export function adminAuth(adminToken: string, metrics: Metrics): GatewayMiddleware {
  const check = createAdminCheck(adminToken, metrics);
  return (ctx, next) => {
    check(ctx.req);
    return next();
  };
}
