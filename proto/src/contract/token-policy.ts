import { invalidArgument, type AppError } from './app-error.js';
import type { TokenPolicy as ProtoTokenPolicy } from './gen/dynamic_events/registry/v1/tokens.js';

/** A token's rate limit: events per second on average, up to `burst` at once. */
export interface TokenRate {
  perSecond: number;
  burst: number;
}

/**
 * What a token may do, in both services' terms (protobuf's TokenPolicy stops at the gRPC edges). An
 * absent field means no restriction; an empty list allows nothing, so "not set" and "set to
 * nothing" stay distinct all the way from the request to the database. The rules of the values
 * are the registry's (validatePolicy).
 */
export interface TokenPolicy {
  mayCreate?: string[];
  domains?: string[];
  maxDevices?: number;
  maxObjects?: number;
  rate?: TokenRate;
}

/**
 * A policy in the HTTP API's JSON shape, which is also what the tokens table stores and the CLI
 * prints, so a stored policy reads the same in SQL as in the API (one owner of that shape): `{"may_create": [...], "domains": [...],
 * "max_devices": n, "max_objects": n, "rate": {"per_second": n, "burst": n}}`, absent members omitted.
 */
export interface PolicyJson {
  may_create?: string[];
  domains?: string[];
  max_devices?: number;
  max_objects?: number;
  rate?: { per_second: number; burst: number };
}

/**
 * A protobuf policy in both services' terms (the gRPC edges of the gateway, the registry and its
 * CLI). An unset StringList stays absent (no restriction), a set one keeps its values even when
 * empty (nothing allowed); int64s arrive as decimal strings.
 */
export function fromProtoPolicy(policy: ProtoTokenPolicy | undefined): TokenPolicy {
  if (!policy) return {};
  return {
    ...(policy.mayCreate ? { mayCreate: policy.mayCreate.values } : {}),
    ...(policy.domains ? { domains: policy.domains.values } : {}),
    ...(policy.maxDevices !== undefined ? { maxDevices: Number(policy.maxDevices) } : {}),
    ...(policy.maxObjects !== undefined ? { maxObjects: Number(policy.maxObjects) } : {}),
    ...(policy.rate ? { rate: { perSecond: policy.rate.perSecond, burst: policy.rate.burst } } : {}),
  };
}

/** A policy in protobuf terms: an unset field stays unset, an empty list stays empty. */
export function toProtoPolicy(policy: TokenPolicy): ProtoTokenPolicy {
  return {
    mayCreate: policy.mayCreate === undefined ? undefined : { values: policy.mayCreate },
    domains: policy.domains === undefined ? undefined : { values: policy.domains },
    maxDevices: policy.maxDevices === undefined ? undefined : String(policy.maxDevices),
    maxObjects: policy.maxObjects === undefined ? undefined : String(policy.maxObjects),
    rate: policy.rate && { perSecond: policy.rate.perSecond, burst: policy.rate.burst },
  };
}

/**
 * The documented range of every numeric policy field (README "Tokens", openapi.yaml TokenPolicy),
 * checked by checkPolicyNumbers wherever a policy comes in (admin API, CLI, TokenService) before it
 * reaches the wire (burst is a uint32 there) or the database. Counts are int4-sized wherever a
 * gateway or a dashboard keeps them. A rate meters floods, not daily quotas (max_devices and
 * max_objects are those): at least 0.001 per second, one event per 1000 s, keeps the limiter's
 * arithmetic exact, Retry-After within about 17 minutes and the state one event leaves in Redis
 * as short; below it 1/per_second overflows (5e-324) or stops meaning anything (1e-9: 31 years).
 */
const POLICY_RANGES = Object.freeze({
  count: Object.freeze({ min: 0, max: 2_147_483_647 }),
  perSecond: Object.freeze({ min: 0.001, max: 1_000_000 }),
  burst: Object.freeze({ min: 1, max: 1_000_000 }),
});

/** What is wrong with a rate, as the INVALID_ARGUMENT naming its field; undefined when it is in range. */
export function rateProblem(rate: TokenRate, field = 'policy.rate'): AppError | undefined {
  const { perSecond, burst } = rate;
  const { perSecond: r, burst: b } = POLICY_RANGES;
  // Written so NaN fails every comparison into the refusal.
  if (!(perSecond >= r.min && perSecond <= r.max)) {
    return invalidArgument(`${field}.per_second`, 'range', `${field}.per_second must be a number from ${r.min} to ${r.max}`);
  }
  if (!Number.isInteger(burst)) return invalidArgument(`${field}.burst`, 'integer', `${field}.burst must be an integer`);
  if (burst < b.min) return invalidArgument(`${field}.burst`, 'min', `${field}.burst must be at least ${b.min}`);
  if (burst > b.max) return invalidArgument(`${field}.burst`, 'max', `${field}.burst must be at most ${b.max}`);
  return undefined;
}

/** Checks every numeric field of a policy against POLICY_RANGES; throws INVALID_ARGUMENT naming the field. */
export function checkPolicyNumbers(policy: TokenPolicy, field = 'policy'): void {
  const { count } = POLICY_RANGES;
  for (const [name, value] of [['max_devices', policy.maxDevices], ['max_objects', policy.maxObjects]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= count.min && value <= count.max)) {
      throw invalidArgument(`${field}.${name}`, 'range', `${field}.${name} must be an integer from ${count.min} to ${count.max}`);
    }
  }
  const problem = policy.rate && rateProblem(policy.rate, `${field}.rate`);
  if (problem) throw problem;
}

const KNOWN = new Set(['may_create', 'domains', 'max_devices', 'max_objects', 'rate']);
const RATE_KNOWN = new Set(['per_second', 'burst']);

/** A policy in the JSON shape, with only the fields that are set. */
export function policyToJson(policy: TokenPolicy): PolicyJson {
  return {
    ...(policy.mayCreate !== undefined ? { may_create: policy.mayCreate } : {}),
    ...(policy.domains !== undefined ? { domains: policy.domains } : {}),
    ...(policy.maxDevices !== undefined ? { max_devices: policy.maxDevices } : {}),
    ...(policy.maxObjects !== undefined ? { max_objects: policy.maxObjects } : {}),
    ...(policy.rate !== undefined ? { rate: { per_second: policy.rate.perSecond, burst: policy.rate.burst } } : {}),
  };
}

/**
 * A policy from the JSON shape (an operator's `--policy`, or a stored row). Types are checked here
 * and unknown members refused: a misspelt "domain" silently meaning "no restriction" would open
 * what the operator meant to close. The values' rules are validatePolicy's.
 */
export function policyFromJson(value: unknown, field = 'policy'): TokenPolicy {
  const json = objectOf(value, field, KNOWN);
  const policy: TokenPolicy = {};
  if (json.may_create !== undefined) policy.mayCreate = stringsOf(json.may_create, `${field}.may_create`);
  if (json.domains !== undefined) policy.domains = stringsOf(json.domains, `${field}.domains`);
  if (json.max_devices !== undefined) policy.maxDevices = numberOf(json.max_devices, `${field}.max_devices`);
  if (json.max_objects !== undefined) policy.maxObjects = numberOf(json.max_objects, `${field}.max_objects`);
  if (json.rate !== undefined) {
    const rate = objectOf(json.rate, `${field}.rate`, RATE_KNOWN);
    policy.rate = { perSecond: numberOf(rate.per_second, `${field}.rate.per_second`), burst: numberOf(rate.burst, `${field}.rate.burst`) };
  }
  return policy;
}

function objectOf(value: unknown, field: string, known: Set<string>): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidArgument(field, 'type', `${field} must be an object`);
  for (const key of Object.keys(value)) {
    if (!known.has(key)) throw invalidArgument(`${field}.${key}`, 'unknown-field', `${field}.${key} is not a policy field (${[...known].join(', ')})`);
  }
  return value as Record<string, unknown>;
}

function stringsOf(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalidArgument(field, 'type', `${field} must be an array of strings`);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw invalidArgument(`${field}[${i}]`, 'type', `${field}[${i}] must be a string`);
  });
  return value as string[];
}

function numberOf(value: unknown, field: string): number {
  if (typeof value !== 'number') throw invalidArgument(field, 'type', `${field} must be a number`);
  return value;
}
