import type { IncomingMessage } from 'node:http';
import { AppError, checkUtf8, invalidArgument } from '@dynamic-events/proto';
import { isClientFault } from '../http/client-faults.js';
import { CUT_MIN_CHARS, cutImage, isCutAt } from './image-cut.js';
import { readBodyBytes } from './body-bytes.js';
import { contentCodingOf, type ContentCoding } from './content-coding.js';

/** A request body read as JSON: the object, the bytes it was parsed from, and a lifted image. */
export interface JsonBody {
  /** The body as received (after decompression): what an Idempotency-Key's fingerprint is taken of. */
  bytes: Buffer;
  body: Record<string, unknown>;
  /** The decoded base64_image when it was lifted from the bytes (image-cut.ts); `body` then holds a marker there. */
  image?: Buffer;
}

/** Limits of a JSON request body. */
interface JsonBodyOptions {
  maxBodyBytes: number;
  maxDepth: number;
  maxValues: number;
  /** A base64_image value decoding to more than this is never lifted out (it gets its 413 later). */
  maxImageBytes: number;
  /** False: no image is lifted out (a batch, whose images are not at the single event's place). */
  liftImage?: boolean;
}

/**
 * Content-Type check, size-limited read, UTF-8 check and JSON parsing of an object body.
 * The bytes are checked before they are decoded (invalid UTF-8 would otherwise become U+FFFD and
 * merge identities): isUtf8 is one native pass over the buffer with no allocation, well under the
 * cost of the JSON.parse that follows. JSON.parse stores `__proto__` keys as own data properties,
 * so they never reach a prototype. A large base64_image is decoded from the bytes instead of being
 * parsed as text when it can be (image-cut.ts); the outcome is the same either way.
 */
export async function readJsonBody(req: IncomingMessage, options: JsonBodyOptions): Promise<JsonBody> {
  assertJsonContentType(req.headers['content-type'] ?? '');
  const coding = contentCodingOf(req.headers['content-encoding']);
  let bytes: Buffer;
  try {
    bytes = await readBodyBytes(req, options.maxBodyBytes, coding);
  } catch (err) {
    throw bodyReadError(err, options.maxBodyBytes, coding);
  }
  checkUtf8(bytes);
  const cut = bytes.length > CUT_MIN_CHARS && options.liftImage !== false ? cutImage(bytes, options.maxImageBytes) : undefined;
  if (cut !== undefined) {
    const body = parseJsonText(cut.text, options);
    if (isCutAt(body)) return { bytes, body, image: cut.image };
  }
  return { bytes, body: parseJsonText(bytes.toString('utf8'), options) };
}

/** A leading byte-order mark is not part of the JSON; no body at all (Content-Length: 0) is not JSON either. */
function parseJsonText(text: string, options: JsonBodyOptions): Record<string, unknown> {
  return parseJsonObject(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, options);
}


/**
 * Why the body could not be read, in the caller's terms. The limit applies to the decompressed
 * bytes, so a compression bomb is a 413 too. Anything unexpected stays an internal error.
 */
function bodyReadError(err: unknown, maxBodyBytes: number, coding: ContentCoding): unknown {
  const { status, type } = (err ?? {}) as { status?: unknown; type?: unknown };
  if (status === 413) {
    return new AppError('INVALID_ARGUMENT', `body exceeds ${maxBodyBytes} bytes`, { httpStatus: 413, field: 'body', rule: 'max-body-bytes' });
  }
  // A client gone mid-body (499) or broken chunked framing (answered 400 by the clientError handler):
  // its request line is the only log of it.
  if (isClientFault(err)) return invalidArgument('body', 'unreadable', 'request aborted');
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = type === 'request.size.invalid' ? 'body length does not match Content-Length' : 'body could not be read';
    return invalidArgument('body', 'unreadable', message);
  }
  // Errors without a status while decompressing come from zlib: the caller sent corrupt data.
  if (status === undefined && coding !== 'identity' && err instanceof Error) {
    return invalidArgument('body', 'content-encoding', `body is not valid ${coding} data`);
  }
  return err;
}

/** 415 unless the media type is application/json; parameters are fine, a non-UTF-8 charset is not. */
export function assertJsonContentType(header: string): void {
  const [type = '', ...parameters] = header.split(';');
  const unsupported = (message: string) => new AppError('INVALID_ARGUMENT', message, { httpStatus: 415, field: 'Content-Type', rule: 'content-type' });
  if (type.trim().toLowerCase() !== 'application/json') throw unsupported('Content-Type must be application/json');
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    const charset = value.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (name.trim().toLowerCase() === 'charset' && charset !== 'utf-8' && charset !== 'utf8') {
      throw unsupported('Content-Type charset must be utf-8');
    }
  }
}

/**
 * Parses a body that must be a JSON object. Depth and the number of values are checked on the text
 * before parsing, in one iterative pass, so an absurdly nested or wide body costs neither a parse
 * nor a large structure (memory per request stays near the body's own size).
 */
export function parseJsonObject(text: string, limits: { maxDepth: number; maxValues: number }): Record<string, unknown> {
  const shape = jsonShapeExceeds(text, limits.maxDepth, limits.maxValues);
  if (shape === 'depth') {
    throw invalidArgument('body', 'max-depth', `body is nested too deeply (max ${limits.maxDepth} levels)`);
  }
  if (shape === 'values') {
    throw invalidArgument('body', 'max-values', `body holds too many JSON values (max ${limits.maxValues} members and elements)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument('body', 'invalid-json', 'body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArgument('body', 'not-object', 'body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Which limit the JSON text breaks, if any: arrays/objects nested deeper than `maxDepth` (the
 * top-level object is level 1), or more than `maxValues` members and elements (counted by their
 * ':' and ',' separators). Strings are skipped with a native indexOf rather than walked character by
 * character: a Base64 image is almost the whole body, and a per-character loop over it cost more
 * than parsing it. The count is an upper bound for valid JSON and harmless for invalid JSON
 * (JSON.parse refuses that afterwards).
 */
export function jsonShapeExceeds(text: string, maxDepth: number, maxValues: number): 'depth' | 'values' | undefined {
  let depth = 0;
  let separators = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return 'depth';
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    } else if (code === 0x2c || code === 0x3a) {
      if (++separators > maxValues) return 'values';
    }
  }
  return undefined;
}

/** Index of the quote that closes the string opened at `open` (text.length when none does). */
function closingQuote(text: string, open: number): number {
  for (let close = text.indexOf('"', open + 1); close !== -1; close = text.indexOf('"', close + 1)) {
    // A quote preceded by an odd run of backslashes is escaped; the opening quote ends the run.
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
  }
  return text.length;
}
