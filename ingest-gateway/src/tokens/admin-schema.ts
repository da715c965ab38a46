/**
 * JSON shapes of the token admin API (types only: the registry owns the rules on the values, such
 * as which entity kinds exist, domain patterns and ranges, and names the field when one breaks).
 * Integers are bounded to what a JSON number carries exactly, so they reach the registry unchanged.
 */
const SAFE_INTEGER = { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;
const STRINGS = { type: 'array', items: { type: 'string' }, maxItems: 1000 } as const;

const TOKEN_POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    may_create: STRINGS,
    domains: STRINGS,
    max_devices: SAFE_INTEGER,
    max_objects: SAFE_INTEGER,
    rate: {
      type: 'object',
      additionalProperties: false,
      required: ['per_second', 'burst'],
      properties: { per_second: { type: 'number' }, burst: SAFE_INTEGER },
    },
  },
} as const;

/** `expires_at`: an RFC 3339 string (checked after the schema), or null for no expiry. */
const EXPIRES_AT = { type: ['string', 'null'] } as const;

export const CREATE_TOKEN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string' }, policy: TOKEN_POLICY_SCHEMA, expires_at: EXPIRES_AT },
} as const;

export const UPDATE_TOKEN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string' }, policy: TOKEN_POLICY_SCHEMA, expires_at: EXPIRES_AT },
} as const;

export const AUTH_SETTINGS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['require_token'],
  properties: { require_token: { type: 'boolean' } },
} as const;
