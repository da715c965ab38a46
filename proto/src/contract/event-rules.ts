import { isUtf8 } from 'node:buffer';
import { AppError, invalidArgument } from './app-error.js';

/**
 * The rules on an event's fields and their messages, owned here and imported by the gateway (HTTP
 * validation) and the registry (which other platform services call directly): both refuse the same
 * input with the same rule name and the same words. Limits live beside them in limits.ts.
 */

/** Builds the error of each rule; `field` is the body's dotted path, e.g. "source.device_name". */
export const ruleError = {
  required: (field: string): AppError => invalidArgument(field, 'required', `${field} is required`),
  notEmpty: (field: string): AppError => invalidArgument(field, 'not-empty', `${field} must not be empty`),
  maxLength: (field: string, limit: number): AppError => invalidArgument(field, 'max-length', `${field} must be at most ${limit} characters`),
  keyMaxLength: (field: string, limit: number): AppError =>
    invalidArgument(field, 'key-max-length', `${field} keys must be at most ${limit} characters`),
  maxItems: (field: string, limit: number): AppError => invalidArgument(field, 'max-items', `${field} must have at most ${limit} items`),
  maxProperties: (field: string, limit: number): AppError =>
    invalidArgument(field, 'max-properties', `${field} must have at most ${limit} properties`),
  containsDomain: (field: string, domain: string): AppError =>
    invalidArgument(field, 'contains-domain', `${field} must not contain the domain (it must not start with ${JSON.stringify(`${domain}.`)})`),
};

/**
 * Characters that show nothing: zero-width space, joiners and word joiner, invisible operators,
 * BOM, soft hyphen, combining grapheme joiner, the Hangul fillers and the Mongolian vowel
 * separator. A name made only of them (and whitespace) reads as empty, so it is empty.
 */
// eslint-disable-next-line no-misleading-character-class -- U+034F is listed as a character of its own, not combined with the one before
const INVISIBLE_ONLY = /^[\s\u00ad\u034f\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0]*$/;

/** Whitespace-only (NBSP included) or invisible-only counts as empty; the value itself is stored as sent. */
export function isBlank(value: string): boolean {
  const trimmed = value.trim();
  // The smallest invisible character is U+00AD: a name starting below it is not blank.
  return trimmed.length === 0 || (trimmed.charCodeAt(0) >= 0xad && INVISIBLE_ONLY.test(trimmed));
}

/**
 * C0 and C1 controls (ESC, CR, LF, TAB...) and bidirectional formatting marks (ALM, LRM, RLM, the
 * embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069): in an identity they forge
 * log lines and terminal output, or make two different names display alike ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const IDENTITY_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Throws rule "characters" when an identity holds a control or bidirectional formatting character. */
export function checkIdentityCharacters(field: string, value: string): void {
  if (IDENTITY_FORBIDDEN.test(value)) {
    throw invalidArgument(field, 'characters', `${field} must not contain control or bidirectional formatting characters`);
  }
}

/** What is wrong with a string's characters, if anything. */
type TextProblem = 'nul' | 'lone-surrogate';

/**
 * U+0000 (Postgres text cannot hold it) or a lone UTF-16 surrogate (`"\ud800"` in JSON: not a
 * character, and every encoder would turn it into U+FFFD, merging distinct identities). Both are
 * native scans without allocation (String.prototype.isWellFormed, Node >= 20).
 */
export function textProblem(value: string): TextProblem | undefined {
  if (value.includes('\u0000')) return 'nul';
  if (!value.isWellFormed()) return 'lone-surrogate';
  return undefined;
}

const PROBLEM_WORDS: Record<TextProblem, string> = {
  nul: 'NUL characters (U+0000)',
  'lone-surrogate': 'lone surrogates (U+D800 to U+DFFF alone are not characters)',
};

/** Throws rule "characters" when a value (or, with `keys`, a property key) has a TextProblem. */
export function checkCharacters(field: string, value: string, keys = false): void {
  const problem = textProblem(value);
  if (problem !== undefined) {
    throw invalidArgument(field, 'characters', `${field}${keys ? ' keys' : ''} must not contain ${PROBLEM_WORDS[problem]}`);
  }
}

/**
 * Code units below U+0300 are all NFC-stable and none of them composes with a preceding character
 * (the first combining mark is U+0300), so a string made only of them is NFC without normalizing
 * it: ASCII and Latin-1 names, the usual case, pay one regex test (~15 ns for a 10-character name).
 */
// eslint-disable-next-line no-control-regex -- a range that starts at U+0000, not a control character test
const NFC_STABLE = /^[\u0000-\u02ff]*$/;

/** Whether `value` is in Unicode Normalization Form C (what String.prototype.normalize() gives). */
export function isNfc(value: string): boolean {
  return NFC_STABLE.test(value) || value.normalize('NFC') === value;
}

/**
 * Identity fields are compared as code points, so "caméra" precomposed (NFC) and decomposed (NFD)
 * would be two devices. They are refused, not normalized: the platform stores what callers send,
 * and a caller that normalizes once keeps one identity everywhere (rule "nfc").
 */
export function checkNfc(field: string, value: string): void {
  if (!isNfc(value)) throw invalidArgument(field, 'nfc', `${field} must be Unicode NFC-normalized`);
}

/** An identity field (and a token name): the character rules, then NFC (checked on well-formed text only). */
export function checkIdentityText(field: string, value: string): void {
  checkCharacters(field, value);
  checkIdentityCharacters(field, value);
  checkNfc(field, value);
}

/** The text fields every event carries, by their HTTP names (gateway and registry shapes both fit). */
export interface EventText {
  source: { deviceName: string; objectId: string; objectDomain: string; objectName: string; objectType: string };
  eventType: { eventType: string; displayName: string; displayDescription: string };
  properties: ReadonlyArray<{ key: string; value: string }>;
  images: readonly string[];
  videoClips: readonly string[];
}

/** The dotted path of one property's value, as the gateway's schema names it. */
export function propertyField(prefix: string, key: string): string {
  return `${prefix}event.event_data.event_additional_properties.${key}`;
}

/**
 * Checks the characters of every string of an event, in body order, and that the four identity
 * fields (device_name, object_id, object_domain, event_type) are NFC; `prefix` qualifies fields in a batch.
 */
export function checkEventCharacters(event: EventText, prefix = ''): void {
  const { source, eventType } = event;
  checkIdentityText(`${prefix}source.device_name`, source.deviceName);
  checkIdentityText(`${prefix}source.object_id`, source.objectId);
  checkIdentityText(`${prefix}source.object_domain`, source.objectDomain);
  checkCharacters(`${prefix}source.object_name`, source.objectName);
  checkCharacters(`${prefix}source.object_type`, source.objectType);
  checkIdentityText(`${prefix}event.event_type.event_type`, eventType.eventType);
  checkCharacters(`${prefix}event.event_type.display_name`, eventType.displayName);
  checkCharacters(`${prefix}event.event_type.display_description`, eventType.displayDescription);
  const properties = `${prefix}event.event_data.event_additional_properties`;
  for (const { key, value } of event.properties) {
    checkCharacters(properties, key, true);
    checkCharacters(propertyField(prefix, key), value);
  }
  event.images.forEach((url, i) => checkCharacters(`${prefix}event.event_data.images[${i}]`, url));
  event.videoClips.forEach((url, i) => checkCharacters(`${prefix}event.event_data.video_clips[${i}]`, url));
}

/** The object_id rule of the spec: the platform builds "{object_domain}.{object_id}", so the id must not repeat the domain. */
export function checkObjectIdOutsideDomain(field: string, objectId: string, objectDomain: string): void {
  if (objectId.startsWith(`${objectDomain}.`)) throw ruleError.containsDomain(field, objectDomain);
}

/** Message of a body (or protobuf string) whose bytes are not UTF-8. */
const INVALID_UTF8_MESSAGE = 'body is not valid UTF-8';

/**
 * Refuses bytes that are not valid UTF-8 (CESU-encoded surrogates included) before anything decodes
 * them, since decoding would silently turn each bad sequence into U+FFFD. One native pass, no allocation.
 */
export function checkUtf8(bytes: Uint8Array, field = 'body'): void {
  if (!isUtf8(bytes)) throw invalidArgument(field, 'encoding', field === 'body' ? INVALID_UTF8_MESSAGE : `${field} is not valid UTF-8`);
}

/** An object as stored: the parts its full identifier "{object_domain}.{object_id}" was built from. */
interface ObjectIdentity {
  objectDomain: string;
  objectId: string;
}

/** The full object identifier the spec defines: the domain, a dot, then the object id. */
export function fullObjectId(objectDomain: string, objectId: string): string {
  return `${objectDomain}.${objectId}`;
}

/**
 * One full identifier names one object: ("col.a.b", "c") and ("col.a", "b.c") both give
 * "col.a.b.c", so once one exists the other is refused (ALREADY_EXISTS, HTTP 409) naming it,
 * rather than silently attached to an object of another domain.
 */
export function identityConflict(existing: ObjectIdentity, sent: ObjectIdentity): AppError | undefined {
  if (existing.objectDomain === sent.objectDomain && existing.objectId === sent.objectId) return undefined;
  const fullId = fullObjectId(existing.objectDomain, existing.objectId);
  return new AppError(
    'ALREADY_EXISTS',
    `object ${JSON.stringify(fullId)} already exists with object_domain ${JSON.stringify(existing.objectDomain)} and object_id ` +
      `${JSON.stringify(existing.objectId)}: source.object_domain ${JSON.stringify(sent.objectDomain)} with source.object_id ` +
      `${JSON.stringify(sent.objectId)} would give another object the same identity`,
    { field: 'source.object_id', rule: 'identity-conflict' },
  );
}

declare global {
  interface String {
    /** ES2024; native in Node >= 20. */
    isWellFormed(): boolean;
  }
}
