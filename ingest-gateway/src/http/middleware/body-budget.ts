import type { GatewayMiddleware } from '../context.js';
import type { BodyBudget } from '../../ingest/body-budget.js';

/** The budget as Koa middleware: held while the rest of the chain handles the request. */
export function bodyBudget(budget: BodyBudget): GatewayMiddleware {
  return async (ctx, next) => {
    const reserved = budget.reserve(ctx.req);
    try {
      await next();
    } finally {
      budget.release(reserved);
    }
  };
}
