import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { checkCharacters, checkPolicyNumbers, invalidArgument, policyFromJson, ruleError, type AppError, type PolicyJson, type TokenPolicy } from '@dynamic-events/proto';
import { instantOf } from '../http/query-params.js';
import { AUTH_SETTINGS_SCHEMA, CREATE_TOKEN_SCHEMA, UPDATE_TOKEN_SCHEMA } from './admin-schema.js';
import type { Instant, TokenChange, TokenDraft } from './token-model.js';

interface TokenJson {
  name?: string;
  policy?: PolicyJson;
  expires_at?: string | null;
}

/** Bodies of the token admin API in gateway terms; each throws INVALID_ARGUMENT naming the field. */
interface TokenAdminInput {
  draft(body: unknown): TokenDraft;
  change(body: unknown): TokenChange;
  requireToken(body: unknown): boolean;
}

/** Compiles the schemas once. */
export function createTokenAdminInput(): TokenAdminInput {
  const ajv = new Ajv({ allErrors: false, strict: true, ownProperties: true });
  const create = ajv.compile<TokenJson>(CREATE_TOKEN_SCHEMA);
  const update = ajv.compile<TokenJson>(UPDATE_TOKEN_SCHEMA);
  const settings = ajv.compile<{ require_token: boolean }>(AUTH_SETTINGS_SCHEMA);
  const check = <T>(validate: ValidateFunction<T>, body: unknown): T => {
    if (!validate(body)) throw toInputError(validate.errors?.[0]);
    return body;
  };
  return {
    // The schema reports a bad shape first (naming the field); policyFromJson, the one reader of
    // the policy's JSON (shared with the registry), then maps it, and its numbers are checked
    // against their documented ranges before the wire (burst is a uint32 there).
    draft(body) {
      const json = check(create, body);
      return { name: nameOf(json.name ?? ''), policy: json.policy && policyOf(json.policy), expiresAt: expiryOf(json.expires_at) ?? undefined };
    },
    change(body) {
      const json = check(update, body);
      return {
        ...(json.name !== undefined ? { name: nameOf(json.name) } : {}),
        ...(json.policy !== undefined ? { policy: policyOf(json.policy) } : {}),
        ...(json.expires_at !== undefined ? { expiresAt: expiryOf(json.expires_at) } : {}),
      };
    },
    requireToken: (body) => check(settings, body).require_token,
  };
}

/** The registry owns the name's rules, but a lone surrogate would reach it as U+FFFD: refused here. */
function nameOf(name: string): string {
  checkCharacters('name', name);
  return name;
}

function policyOf(json: PolicyJson): TokenPolicy {
  const policy = policyFromJson(json);
  checkPolicyNumbers(policy);
  return policy;
}

function expiryOf(value: string | null | undefined): Instant | null | undefined {
  return typeof value === 'string' ? instantOf('expires_at', value) : value;
}

const TYPE_PHRASE: Record<string, string> = {
  object: 'an object', string: 'a string', array: 'an array', integer: 'an integer', number: 'a number', boolean: 'true or false', 'string,null': 'a string or null',
};

/** ajv's first error as one message naming the field ("policy.rate.burst") and the rule. */
export function toInputError(error: ErrorObject | undefined): AppError {
  if (!error) return invalidArgument('body', 'schema', 'body is invalid');
  const segments = error.instancePath.split('/').slice(1);
  const path = (parts: string[]) => parts.reduce((at, s) => (/^\d+$/.test(s) ? `${at}[${s}]` : at === '' ? s : `${at}.${s}`), '') || 'body';
  const field = path(segments);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return ruleError.required(path([...segments, String(params.missingProperty)]));
    case 'additionalProperties': {
      const unknown = path([...segments, String(params.additionalProperty)]);
      return invalidArgument(unknown, 'unknown-field', `${unknown} is not a known field`);
    }
    case 'type':
      return invalidArgument(field, 'type', `${field} must be ${TYPE_PHRASE[String(params.type)] ?? String(params.type)}`);
    case 'maxItems':
      return ruleError.maxItems(field, Number(params.limit));
    default:
      return invalidArgument(field, error.keyword, `${field} is out of range`);
  }
}
