import type { IncomingMessage } from 'node:http';
import { AppError } from '@dynamic-events/proto';
import { parseContentCoding } from './content-coding.js';

/** Bytes reserved for request bodies in flight, all requests together. */
export interface BodyBudget {
  /** Reserves this request's share, or throws UNAVAILABLE (503, Retry-After) when others hold too much. */
  reserve(req: IncomingMessage): number;
  /** Gives back what `reserve` returned, once the request is answered. */
  release(bytes: number): void;
}

/**
 * A budget for request bodies being read or handled at once, across all connections. A body costs
 * a few times its size while it is read, parsed, decoded and sent on (text, object, image bytes,
 * protobuf); MAX_BODY_BYTES bounds one request, this bounds their sum, so a burst of large bodies
 * gets 503 with Retry-After instead of pushing the gateway past its memory limit.
 *
 * Each request reserves its declared Content-Length before a byte is read, and gives it back when
 * answered. A chunked body (length unknown) and a compressed one (the limit applies after
 * decompression: a 16 KB gzip may inflate to MAX_BODY_BYTES) reserve MAX_BODY_BYTES. A request is
 * refused only when others already hold budget, so a single maximal body always passes. One budget
 * serves every path that reads a POST body (the Koa route and the fast path).
 */
export function createBodyBudget(options: { maxInflightBytes: number; maxBodyBytes: number }): BodyBudget {
  let inflight = 0;
  return {
    reserve(req) {
      const length = req.headers['content-length'] ?? '';
      const declared = Number(length);
      const identity = parseContentCoding(req.headers['content-encoding']) === 'identity';
      const exact = Number.isSafeInteger(declared) && declared >= 0 && length !== '' && identity;
      const reserve = exact ? Math.min(declared, options.maxBodyBytes) : options.maxBodyBytes;
      if (inflight > 0 && inflight + reserve > options.maxInflightBytes) {
        throw new AppError('UNAVAILABLE', 'too many request bodies in flight; retry later', { rule: 'inflight-bodies', retryAfterSeconds: 1 });
      }
      inflight += reserve;
      return reserve;
    },
    release(bytes) {
      inflight -= bytes;
    },
  };
}
