import { AppError } from '@dynamic-events/proto';
import type { GatewayMiddleware } from '../context.js';

/**
 * A budget for request bodies being read or handled at once, across all connections. A body costs
 * a few times its size while it is read, parsed, decoded and sent on (text, object, image bytes,
 * protobuf); MAX_BODY_BYTES bounds one request, this bounds their sum, so a burst of large bodies
 * gets 503 with Retry-After instead of pushing the gateway past its memory limit.
 *
 * Each request reserves its declared Content-Length before a byte is read, and gives it back when
 * answered. A chunked body (length unknown) and a compressed one (the limit applies after
 * decompression: a 16 KB gzip may inflate to MAX_BODY_BYTES) reserve MAX_BODY_BYTES. A request is
 * refused only when others already hold budget, so a single maximal body always passes.
 */
export function bodyBudget(options: { maxInflightBytes: number; maxBodyBytes: number }): GatewayMiddleware {
  let inflight = 0;
  return async (ctx, next) => {
    const declared = Number(ctx.get('Content-Length'));
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    const exact = Number.isSafeInteger(declared) && declared >= 0 && ctx.get('Content-Length') !== '' && (encoding === '' || encoding === 'identity');
    const reserve = exact ? Math.min(declared, options.maxBodyBytes) : options.maxBodyBytes;
    if (inflight > 0 && inflight + reserve > options.maxInflightBytes) {
      throw new AppError('UNAVAILABLE', 'too many request bodies in flight; retry later', { rule: 'inflight-bodies', retryAfterSeconds: 1 });
    }
    inflight += reserve;
    try {
      await next();
    } finally {
      inflight -= reserve;
    }
  };
}
