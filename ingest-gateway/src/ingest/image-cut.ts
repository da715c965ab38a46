import { randomBytes } from 'node:crypto';
import { BASE64_IMAGE_KEY } from '@dynamic-events/proto';
import { decodeStrictBase64Bytes } from './base64.js';

/** Values shorter than this stay in the text: their strings are ordinary young allocations. */
export const CUT_MIN_CHARS = 64 * 1024;

const KEY = Buffer.from(`"${BASE64_IMAGE_KEY}"`, 'latin1');
// Per process and unguessable: a client cannot send a value equal to it.
const MARKER = `cut-image-${randomBytes(16).toString('hex')}`;

const isJsonSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * Under image load, parsing the body whole costs more than anything else in the gateway: the body as
 * one text and JSON.parse's copy of the Base64 value are two strings of the image's size, each a V8
 * large-object allocation, and the value is then decoded from the second. Here the first string token
 * after the first `"base64_image":` in the raw bytes is decoded in place (base64.ts) and replaced by
 * a marker, and only the rest of the body becomes text. Nothing is cut unless the token is long and
 * decodes as strict Base64 within `maxImageBytes` (so it held no JSON escapes): anything else
 * answers undefined and the body is parsed whole, like any other. The caller must check that the marker
 * landed where base64_image belongs (`isCutAt`) and parse the whole body otherwise.
 */
export function cutImage(body: Buffer, maxImageBytes: number): { text: string; image: Buffer } | undefined {
  const key = body.indexOf(KEY);
  if (key === -1) return undefined;
  let at = key + KEY.length;
  while (isJsonSpace(body[at])) at++;
  if (body[at++] !== 0x3a) return undefined; // ':'
  while (isJsonSpace(body[at])) at++;
  if (body[at] !== 0x22) return undefined; // '"'
  const start = at + 1;
  const end = body.indexOf(0x22, start);
  if (end === -1 || end - start < CUT_MIN_CHARS) return undefined;
  const bytes = decodeStrictBase64Bytes(body.subarray(start, end), maxImageBytes);
  if (bytes === undefined) return undefined;
  // Both cuts sit next to an ASCII quote, so each side is whole UTF-8.
  return { text: `${body.toString('utf8', 0, start)}${MARKER}${body.toString('utf8', end)}`, image: bytes };
}

/** `value[key]` when `value` is an object that owns `key` (JSON.parse makes only plain data objects). */
function ownMember(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** True when the parsed body holds the marker as its event's base64_image, the one place it may stand. */
export function isCutAt(parsed: Record<string, unknown>): boolean {
  const properties = ownMember(ownMember(parsed.event, 'event_data'), 'event_additional_properties');
  return ownMember(properties, BASE64_IMAGE_KEY) === MARKER;
}
