import type { Logger } from '@dynamic-events/proto/runtime';
import type { GatewayMiddleware } from '../context.js';
import type { Metrics } from '../../metrics.js';
import { createFailureAnswer } from '../failure-answer.js';

/** Registered first: every failure below it is answered by `createFailureAnswer`. */
export function errors(deps: { logger: Logger; metrics: Metrics }): GatewayMiddleware {
  const answer = createFailureAnswer(deps);
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { status, headers, body } = answer(err, { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path });
      if (ctx.headerSent) return;
      ctx.set(headers);
      ctx.status = status;
      ctx.body = body;
    }
  };
}
