import { Ajv, type ErrorObject } from 'ajv';
import {
  AppError,
  BASE64_IMAGE_KEY,
  checkEventCharacters,
  checkObjectIdOutsideDomain,
  invalidArgument,
  isBlank,
  LIMITS,
  OCCURRED_AT_FIELD,
  ruleError,
  type OccurredAtRule,
} from '@dynamic-events/proto';
import type { EventInput } from '../model.js';
import { DYNAMIC_EVENT_SCHEMA as schema } from './event-schema.js';

/*
 * Unknown fields: rejected inside source, event, event.event_type and event.event_data ("... is not
 * a known field"), so a typo never silently drops data; tolerated at the top level, where both known
 * fields are required, so a misspelt one still fails, and envelopes may carry extra metadata.
 */

/** The request body once the schema accepted it (field names as the spec writes them). */
interface DynamicEventBody {
  source: { device_name: string; object_id: string; object_domain: string; object_name: string; object_type: string };
  event: {
    occurred_at?: string;
    event_type: { event_type: string; display_name: string; display_description: string };
    event_data?: {
      event_additional_properties?: Record<string, string>;
      images?: string[];
      video_clips?: string[];
    };
  };
}

/** A validated body: the event for the registry and, when sent, the raw base64_image value. */
interface ValidatedEvent {
  input: EventInput;
  base64Image: string | undefined;
}

/** Validates parsed bodies against the schema plus the rules a schema cannot say. */
interface EventValidator {
  /** Throws AppError INVALID_ARGUMENT naming the field and the rule (details.field, details.rule). */
  validate(body: Record<string, unknown>): ValidatedEvent;
}

/** The dotted path of the image property, used in every message about it. */
export const BASE64_IMAGE_FIELD = `event.event_data.event_additional_properties.${BASE64_IMAGE_KEY}`;

/** Compiles the schema; call once at start-up (compilation is the slow part). `occurredAt`: the shared rule with this gateway's clock. */
export function createEventValidator(occurredAt: OccurredAtRule): EventValidator {
  const check = compileSchema(false);
  // Ajv checks `required` before `additionalProperties`: a misspelt name would be answered as the
  // missing one. Only on that refusal, a second pass with every error finds the unknown name.
  const explain = compileSchema(true);
  const firstError = (body: unknown): ErrorObject | undefined => {
    const first = check.errors?.[0];
    if (first?.keyword !== 'required') return first;
    explain(body);
    return explain.errors?.find((e) => e.keyword === 'additionalProperties' && e.instancePath === first.instancePath) ?? first;
  };

  return {
    validate(body) {
      if (!check(body)) throw toValidationError(firstError(body));
      const { source, event } = body;
      checkObjectIdOutsideDomain('source.object_id', source.object_id, source.object_domain);
      const data = event.event_data ?? {};
      const sent = data.event_additional_properties ?? {};
      const input: EventInput = {
        source: {
          deviceName: source.device_name,
          objectId: source.object_id,
          objectDomain: source.object_domain,
          objectName: source.object_name,
          objectType: source.object_type,
        },
        eventType: {
          eventType: event.event_type.event_type,
          displayName: event.event_type.display_name,
          displayDescription: event.event_type.display_description,
        },
        // Object.entries reads own keys only, so "__proto__" is just another key here.
        properties: Object.entries(sent)
          .filter(([key]) => key !== BASE64_IMAGE_KEY)
          .map(([key, value]) => ({ key, value })),
        images: [...(data.images ?? [])],
        videoClips: [...(data.video_clips ?? [])],
        // Set by the route when present; declared here so every event has one shape (V8 keeps
        // the code that reads it monomorphic: a spread copy per request cost the gateway ~10 µs).
        idempotency: undefined,
        tokenId: undefined,
        occurredAt: event.occurred_at === undefined ? undefined : occurredAt.parse(OCCURRED_AT_FIELD, event.occurred_at).timestamp,
      };
      // The registry's own rule (NUL, lone surrogates), checked here too so no image is stored
      // for a request the registry would refuse. base64_image is ASCII by its own rule.
      checkEventCharacters(input);
      const base64Image = Object.hasOwn(sent, BASE64_IMAGE_KEY) ? sent[BASE64_IMAGE_KEY] : undefined;
      if (base64Image !== undefined) checkRoomForImageUrl(input.images);
      return { input, base64Image };
    },
  };
}

/** The schema compiled; `allErrors` collects every error instead of stopping at the first. */
function compileSchema(allErrors: boolean) {
  // ownProperties: inherited names (constructor, toString) must never satisfy `required`.
  const ajv = new Ajv({ allErrors, strict: true, ownProperties: true });
  ajv.addKeyword({
    keyword: 'notBlank',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    // Whitespace-only counts as empty; the value itself is stored as sent.
    validate: (enabled: boolean, data: string) => !enabled || !isBlank(data),
  });
  return ajv.compile<DynamicEventBody>(schema);
}

/**
 * The stored image's URL is appended to the images, and a stored event holds at most
 * LIMITS.urlsMaxCount of them (the registry's rule): checked before the image is stored.
 */
function checkRoomForImageUrl(images: string[]): void {
  const sendable = LIMITS.urlsMaxCount - 1;
  if (images.length > sendable) {
    const field = 'event.event_data.images';
    throw invalidArgument(field, 'max-items', `${field} must have at most ${sendable} items when base64_image is sent (its stored URL is the ${LIMITS.urlsMaxCount}th)`);
  }
}

const URL_LISTS = new Set(['images', 'video_clips']);

/** JSON Pointer segments → "event.event_data.images[3]" (indexes only inside the URL lists). */
function fieldPath(segments: string[]): string {
  let path = '';
  segments.forEach((segment, i) => {
    const inUrlList = i === 3 && segments[0] === 'event' && segments[1] === 'event_data' && URL_LISTS.has(segments[2] ?? '');
    path = inUrlList ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`;
  });
  return path === '' ? 'body' : path;
}

const TYPE_PHRASE: Record<string, string> = { object: 'an object', string: 'a string', array: 'an array of strings' };

/** Turns ajv's first error into one message naming the field and the rule. */
function toValidationError(error: ErrorObject | undefined): AppError {
  if (!error) return invalidArgument('body', 'schema', 'body is invalid');
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  const field = fieldPath(segments);
  const fail = (rule: string, message: string, at = field) => invalidArgument(at, rule, message);

  switch (error.keyword) {
    case 'required':
      return ruleError.required(fieldPath([...segments, String(params.missingProperty)]));
    case 'additionalProperties': {
      const unknown = fieldPath([...segments, String(params.additionalProperty)]);
      return fail('unknown-field', `${unknown} is not a known field`, unknown);
    }
    case 'type': {
      // A non-string item makes the whole list wrong: name the list, as the caller wrote it.
      if (error.schemaPath.includes('/items/')) {
        const list = fieldPath(segments.slice(0, -1));
        return fail('type', `${list} must be an array of strings`, list);
      }
      return fail('type', `${field} must be ${TYPE_PHRASE[String(params.type)] ?? `of type ${String(params.type)}`}`);
    }
    case 'notBlank':
      return ruleError.notEmpty(field);
    case 'maxLength':
      if (error.schemaPath.includes('/propertyNames/')) return ruleError.keyMaxLength(field, Number(params.limit));
      return ruleError.maxLength(field, Number(params.limit));
    case 'maxItems':
      return ruleError.maxItems(field, Number(params.limit));
    case 'maxProperties':
      return ruleError.maxProperties(field, Number(params.limit));
    default:
      return fail(error.keyword, `${field} is invalid (${error.keyword})`);
  }
}
