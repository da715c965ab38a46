import { localValue, utcInstant } from './format.js';
import type { PolicyJson, TokenJson } from './model.js';

/** The token form's values, as its inputs hold them (strings, one domain pattern per line). */
export interface TokenFormValues {
  name: string;
  mayCreate: { devices: boolean; objects: boolean; event_types: boolean };
  domains: string;
  maxDevices: string;
  maxObjects: string;
  perSecond: string;
  burst: string;
  expiresAt: string;
}

/** The form's inputs, each the owner of the API fields whose refusals it shows. */
export type FormInput = 'name' | 'mayCreate' | 'domains' | 'maxDevices' | 'maxObjects' | 'perSecond' | 'burst' | 'expiresAt';

/** A new token: may create everything, any domain, no limits, no expiry. */
export const EMPTY_FORM: TokenFormValues = {
  name: '',
  mayCreate: { devices: true, objects: true, event_types: true },
  domains: '',
  maxDevices: '',
  maxObjects: '',
  perSecond: '',
  burst: '',
  expiresAt: '',
};

/** An existing token's settings in the form. */
export function formOf(token: TokenJson): TokenFormValues {
  const may = token.policy.may_create;
  return {
    name: token.name,
    mayCreate: { devices: !may || may.includes('devices'), objects: !may || may.includes('objects'), event_types: !may || may.includes('event_types') },
    domains: (token.policy.domains ?? []).join('\n'),
    maxDevices: token.policy.max_devices?.toString() ?? '',
    maxObjects: token.policy.max_objects?.toString() ?? '',
    perSecond: token.policy.rate?.per_second.toString() ?? '',
    burst: token.policy.rate?.burst.toString() ?? '',
    expiresAt: localValue(token.expires_at),
  };
}

/** A number input's text as the JSON number sent; text that is no number is sent as is, for the API to name. */
const numberOf = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/**
 * The policy the form says. Every box ticked sends no `may_create` (no restriction); an empty
 * Domains box sends no `domains` (any domain); an empty number sends nothing. Rate: either of its
 * two fields sends the pair, so a missing one is refused by the API naming it.
 */
export function policyOf(values: TokenFormValues): PolicyJson {
  const policy: Record<string, unknown> = {};
  const kinds = (Object.keys(values.mayCreate) as Array<keyof TokenFormValues['mayCreate']>).filter((kind) => values.mayCreate[kind]);
  if (kinds.length < 3) policy.may_create = kinds;
  const domains = values.domains.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  if (domains.length > 0) policy.domains = domains;
  if (values.maxDevices.trim() !== '') policy.max_devices = numberOf(values.maxDevices);
  if (values.maxObjects.trim() !== '') policy.max_objects = numberOf(values.maxObjects);
  if (values.perSecond.trim() !== '' || values.burst.trim() !== '') {
    policy.rate = {
      ...(values.perSecond.trim() !== '' ? { per_second: numberOf(values.perSecond) } : {}),
      ...(values.burst.trim() !== '' ? { burst: numberOf(values.burst) } : {}),
    };
  }
  return policy as PolicyJson;
}

/** The body of POST …/tokens (create) or PATCH …/tokens/{id} (edit: a cleared expiry is null). */
export function bodyOf(values: TokenFormValues, editing: boolean): Record<string, unknown> {
  const expires = utcInstant(values.expiresAt);
  return { name: values.name, policy: policyOf(values), ...(expires !== '' ? { expires_at: expires } : editing ? { expires_at: null } : {}) };
}

/** The form input that shows a refusal naming `field` (an API field path); none: shown above the form. */
export function inputOf(field: string | undefined): FormInput | undefined {
  if (field === undefined) return undefined;
  const table: Array<[RegExp, FormInput]> = [
    [/^name$/, 'name'],
    [/^policy\.may_create/, 'mayCreate'],
    [/^policy\.domains/, 'domains'],
    [/^policy\.max_devices$/, 'maxDevices'],
    [/^policy\.max_objects$/, 'maxObjects'],
    [/^policy\.rate\.burst$/, 'burst'],
    [/^policy\.rate/, 'perSecond'],
    [/^expires_at$/, 'expiresAt'],
  ];
  return table.find(([pattern]) => pattern.test(field))?.[1];
}
