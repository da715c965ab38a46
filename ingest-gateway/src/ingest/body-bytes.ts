import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import getRawBody from 'raw-body';
import type { ContentCoding } from './content-coding.js';

/**
 * Reads the request body as bytes, decompressed from `coding` (content-coding.ts reads it from the
 * header), at most `limit` bytes after decompression.
 * Bytes, not text: a UTF-8 decoder would silently turn invalid sequences into U+FFFD, so the
 * caller checks them (one native pass) before decoding. Errors are raw-body's (status 413
 * "entity.too.large", 400 "request.size.invalid" or "request.aborted"), or zlib's for corrupt
 * compressed data.
 */
export function readBodyBytes(req: IncomingMessage, limit: number, coding: ContentCoding): Promise<Buffer> {
  let stream: Readable = req;
  if (coding === 'gzip' || coding === 'deflate') stream = req.pipe(createUnzip());
  else if (coding === 'br') stream = req.pipe(createBrotliDecompress());
  // The declared length is checked only when it describes the bytes read (no decompression).
  const declared = coding === 'identity' ? req.headers['content-length'] : undefined;
  return getRawBody(stream, { limit, ...(declared ? { length: Number(declared) } : {}) });
}
