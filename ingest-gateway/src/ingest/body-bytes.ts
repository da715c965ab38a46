import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import getRawBody from 'raw-body';

/**
 * Reads the request body as bytes, decompressed, at most `limit` bytes after decompression.
 * Bytes, not text: a UTF-8 decoder would silently turn invalid sequences into U+FFFD, so the
 * caller checks them (one native pass) before decoding. Errors are raw-body's (status 413
 * "entity.too.large", 400 "request.size.invalid" or "request.aborted"), 415 for an unknown
 * Content-Encoding, or zlib's for corrupt compressed data.
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = req.headers['content-encoding'] || 'identity';
  let stream: Readable = req;
  if (encoding === 'gzip' || encoding === 'deflate') stream = req.pipe(createUnzip());
  else if (encoding === 'br') stream = req.pipe(createBrotliDecompress());
  else if (encoding !== 'identity') return Promise.reject(Object.assign(new Error('unsupported Content-Encoding'), { status: 415 }));
  // The declared length is checked only when it describes the bytes read (no decompression).
  const declared = encoding === 'identity' ? req.headers['content-length'] : undefined;
  return getRawBody(stream, { limit, ...(declared ? { length: Number(declared) } : {}) });
}
