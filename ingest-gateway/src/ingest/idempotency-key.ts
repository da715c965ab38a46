import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_HEADER, invalidArgument } from '@dynamic-events/proto';
import type { IdempotencyInput } from '../model.js';

const HEADER = IDEMPOTENCY_KEY_HEADER.toLowerCase();

/**
 * The request's Idempotency-Key and the fingerprint of its body, or undefined without the header
 * (then nothing is hashed: a request without a key pays one property lookup). The key rules are
 * the shared ones (proto); sent twice is refused here, since Node would join both into one value.
 * The fingerprint is the sha256 of the body as received, after decompression (a text is taken as
 * its UTF-8 bytes, so both give the same digest): a retry sends the same bytes, and any change,
 * even one of formatting, counts as another request.
 */
export function readIdempotencyKey(req: IncomingMessage, body: Buffer | string): IdempotencyInput | undefined {
  const key = req.headers[HEADER];
  if (key === undefined) return undefined;
  if ((req.headersDistinct[HEADER]?.length ?? 0) > 1) {
    throw invalidArgument(IDEMPOTENCY_KEY_HEADER, 'single', `${IDEMPOTENCY_KEY_HEADER} header must be sent once`);
  }
  checkIdempotencyKey(String(key));
  return { key: String(key), requestHash: createHash('sha256').update(body).digest('hex') };
}
