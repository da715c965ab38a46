import { BASE64_IMAGE_KEY, LIMITS } from '@dynamic-events/proto';

/**
 * JSON Schema of the body of POST /api/{segment}/dh/dynamic-events, its limits taken from LIMITS
 * in @dynamic-events/proto (the registry checks the same ones); a test keeps openapi.yaml's
 * documented limits equal to it. Characters (no U+0000, no lone surrogate) are checked after the
 * schema by checkEventCharacters, the rule the registry applies too. Unknown fields are rejected
 * inside source, event, event.event_type and event.event_data (a typo would silently lose data);
 * unknown top-level fields are tolerated: both known ones are required, so a typo there still fails.
 * `notBlank` is the validator's own keyword: whitespace only counts as empty.
 */
export const DYNAMIC_EVENT_SCHEMA = {
  type: 'object',
  required: ['source', 'event'],
  properties: {
    source: {
      type: 'object',
      required: ['device_name', 'object_id', 'object_domain', 'object_name', 'object_type'],
      additionalProperties: false,
      properties: {
        device_name: { $ref: '#/$defs/name' },
        object_id: { $ref: '#/$defs/name' },
        object_domain: { $ref: '#/$defs/name' },
        object_name: { $ref: '#/$defs/name' },
        object_type: { $ref: '#/$defs/name' },
      },
    },
    event: {
      type: 'object',
      required: ['event_type'],
      additionalProperties: false,
      properties: {
        occurred_at: { type: 'string' },
        event_type: {
          type: 'object',
          required: ['event_type', 'display_name', 'display_description'],
          additionalProperties: false,
          properties: {
            event_type: { $ref: '#/$defs/name' },
            display_name: { $ref: '#/$defs/name' },
            display_description: { type: 'string', notBlank: true, maxLength: LIMITS.descriptionMaxLength },
          },
        },
        event_data: {
          type: 'object',
          additionalProperties: false,
          properties: {
            event_additional_properties: {
              type: 'object',
              maxProperties: LIMITS.propertiesMaxCount,
              propertyNames: { maxLength: LIMITS.propertyKeyMaxLength },
              properties: { [BASE64_IMAGE_KEY]: { type: 'string' } },
              additionalProperties: { type: 'string', maxLength: LIMITS.propertyValueMaxLength },
            },
            images: { $ref: '#/$defs/urls' },
            video_clips: { $ref: '#/$defs/urls' },
          },
        },
      },
    },
  },
  $defs: {
    name: { type: 'string', notBlank: true, maxLength: LIMITS.nameMaxLength },
    urls: { type: 'array', maxItems: LIMITS.urlsMaxCount, items: { type: 'string', maxLength: LIMITS.urlMaxLength } },
  },
} as const;
