import { AppError, quoteName } from '@dynamic-events/proto';
import type pg from 'pg';
import { existingEntities } from '../db/queries/entity-existence.js';
import { tokenCreations } from '../db/queries/token-policies.js';
import { eventTypeKey } from '../db/queries/event-types.js';
import { deviceKey, objectKey, typeKey, type KnownEntities } from '../ingest/known-entities.js';
import type { EventRecorder } from '../ingest/record-events.js';
import { hasExpired, type AbsentToken, type TokenPolicies, type TokenRules } from './token-policies.js';
import { CREATABLE_KINDS } from './token-policy.js';
import { fullObjectId, type NewEvent } from '../model.js';

type Kind = (typeof CREATABLE_KINDS)[number];

/**
 * An entity an event would create if it did not exist: its kind, its key in the known-entities
 * cache (entities seen exist: they are never deleted), the field naming it, and what the existence
 * query needs.
 */
interface Candidate {
  kind: Kind;
  key: string;
  field: string;
  wanted: { device: string } | { object: string } | { type: { domain: string; eventType: string } };
}

/** What an event names, in the order the spec creates them. */
function candidatesOf(event: NewEvent): Candidate[] {
  const { source, eventType } = event;
  const object = fullObjectId(source.objectDomain, source.objectId);
  const type = { domain: source.objectDomain, eventType: eventType.eventType };
  return [
    { kind: 'devices', key: deviceKey(source.deviceName), field: 'source.device_name', wanted: { device: source.deviceName } },
    { kind: 'objects', key: objectKey(object), field: 'source.object_id', wanted: { object } },
    { kind: 'event_types', key: typeKey(eventTypeKey(type.domain, type.eventType)), field: 'event.event_type.event_type', wanted: { type } },
  ];
}

/** Which candidates exist, in one query; answered as known-entities keys. */
async function existingOf(pool: pg.Pool, candidates: Candidate[]): Promise<Set<string>> {
  const wanted = { devices: [] as string[], objects: [] as string[], types: [] as Array<{ domain: string; eventType: string }> };
  for (const { wanted: w } of candidates) {
    if ('device' in w) wanted.devices.push(w.device);
    else if ('object' in w) wanted.objects.push(w.object);
    else wanted.types.push(w.type);
  }
  const found = await existingEntities(pool, wanted);
  return new Set([...[...found.devices].map(deviceKey), ...[...found.objects].map(objectKey), ...[...found.types].map(typeKey)]);
}

/** Why a token's events are refused whatever they name: revoked, never made, or expired. */
const TOKEN_STATE_REFUSALS: Record<AbsentToken | 'expired', () => AppError> = {
  revoked: () => new AppError('PERMISSION_DENIED', 'the token that sent this event is revoked', { field: 'token_id', rule: 'token-revoked' }),
  unknown: () => new AppError('PERMISSION_DENIED', 'the token that sent this event is unknown', { field: 'token_id', rule: 'token-unknown' }),
  expired: () => new AppError('PERMISSION_DENIED', 'the token that sent this event has expired', { field: 'token_id', rule: 'token-expired' }),
};

/** Rules of the live, unexpired tokens among `tokenIds`, and the refusal of each other one. */
async function tokenStates(policies: TokenPolicies, tokenIds: Set<string>) {
  const rules = await policies.rulesOf(tokenIds);
  const refused = new Map<string, AppError>();
  const now = Date.now();
  for (const [id, r] of rules) {
    if (!hasExpired(r, now)) continue;
    rules.delete(id);
    refused.set(id, TOKEN_STATE_REFUSALS.expired());
  }
  const absent = [...tokenIds].filter((id) => !rules.has(id) && !refused.has(id));
  if (absent.length > 0) for (const [id, why] of await policies.absentReasons(absent)) refused.set(id, TOKEN_STATE_REFUSALS[why]());
  return { rules, refused };
}

const refusal = (rules: TokenRules, c: Candidate) =>
  new AppError('PERMISSION_DENIED', `token ${quoteName(rules.name)} may not create ${c.kind.replace('_', ' ')}`, { field: c.field, rule: 'token-may-create' });

/** A token's policy applied to events before they are written (and by CheckEvent, which writes nothing). */
export interface PolicyCheck {
  /** Per event: the refusal, or undefined. may_create is exact (entities are never deleted); no limit is counted. */
  refusalsOf(events: NewEvent[]): Promise<Array<AppError | undefined>>;
  /** CheckEvent: the refusals above, then max_devices / max_objects against the creations committed so far. */
  check(event: NewEvent): Promise<void>;
}

/**
 * Applies `may_create` before anything is written: an event whose token may not create a kind of
 * entity is refused (PERMISSION_DENIED, naming the token and the rule) when its entity of that kind
 * does not exist; the others of the call go on. Entities are never deleted, so "exists now" stays
 * true until the write. Events of a token that is revoked, expired or unknown are refused too,
 * each saying which. max_devices / max_objects are counted inside the write statement itself (record-events-sql.ts);
 * `check` estimates them from the committed counts for CheckEvent.
 */
export function createPolicyCheck(deps: { pool: pg.Pool; policies: TokenPolicies; known: KnownEntities }): PolicyCheck {
  /** `counting`: also what each event would create under a limit (CheckEvent); the write path counts in its statement. */
  async function refusalsWith(events: NewEvent[], states: Awaited<ReturnType<typeof tokenStates>>, counting: boolean) {
    type Check = { refused: AppError } | { token: TokenRules; restricted: Candidate[] } | undefined;
    const { rules, refused } = states;
    const checks = events.map((event): Check => {
      if (event.tokenId === undefined) return undefined;
      const token = rules.get(event.tokenId);
      if (!token) return { refused: refused.get(event.tokenId) ?? TOKEN_STATE_REFUSALS.unknown() };
      const allowed = token.policy.mayCreate;
      const limited = counting && (token.policy.maxDevices !== undefined || token.policy.maxObjects !== undefined);
      if (allowed === undefined && !limited) return undefined;
      // With a limit, the candidates are needed too (what the event would create), even if all are allowed.
      const restricted = candidatesOf(event).filter((c) => !deps.known.has(c.key));
      return restricted.length === 0 ? undefined : { token, restricted };
    });
    const unknown = checks.flatMap((c): Candidate[] => (c && 'restricted' in c ? c.restricted : []));
    const existing = unknown.length === 0 ? new Set<string>() : await existingOf(deps.pool, unknown);
    return checks.map((check) => {
      if (!check) return { refusal: undefined, creates: [] as Candidate[] };
      if ('refused' in check) return { refusal: check.refused, creates: [] as Candidate[] };
      const creates = check.restricted.filter((c) => !existing.has(c.key));
      const allowed = check.token.policy.mayCreate;
      const missing = allowed === undefined ? undefined : creates.find((c) => !allowed.includes(c.kind));
      return { refusal: missing && refusal(check.token, missing), creates };
    });
  }

  return {
    async refusalsOf(events) {
      const tokenIds = new Set<string>();
      for (const e of events) if (e.tokenId !== undefined) tokenIds.add(e.tokenId);
      const none = events.map(() => undefined);
      if (tokenIds.size === 0) return none;
      const states = await tokenStates(deps.policies, tokenIds);
      // Live, unexpired tokens that may create everything need no look at their events.
      if (states.refused.size === 0 && [...states.rules.values()].every((r) => r.policy.mayCreate === undefined)) return none;
      return (await refusalsWith(events, states, false)).map((r) => r.refusal);
    },
    async check(event) {
      if (event.tokenId === undefined) return;
      const states = await tokenStates(deps.policies, new Set([event.tokenId]));
      const [result] = await refusalsWith([event], states, true);
      if (result?.refusal) throw result.refusal;
      const token = states.rules.get(event.tokenId);
      if (!token || !result || result.creates.length === 0) return;
      const counts = await tokenCreations(deps.pool, event.tokenId);
      for (const [kind, max, done] of [['devices', token.policy.maxDevices, counts.devices], ['objects', token.policy.maxObjects, counts.objects]] as const) {
        if (max !== undefined && result.creates.some((c) => c.kind === kind) && done + 1 > max) {
          throw new AppError('PERMISSION_DENIED', `token ${quoteName(token.name)} may not create more than ${max} ${kind}`, { rule: `token-max-${kind}` });
        }
      }
    },
  };
}

/** The recorder with the policy check in front: refused events get their error alone, the others are recorded. */
export function createPolicyRecorder(inner: EventRecorder, check: PolicyCheck): EventRecorder {
  return {
    async record(events) {
      if (!events.some((e) => e.tokenId !== undefined)) return inner.record(events);
      const refusals = await check.refusalsOf(events);
      // The usual case (live tokens without may_create): nothing to split, nothing to copy.
      if (refusals.every((r) => r === undefined)) return inner.record(events);
      const allowed = events.filter((_, i) => refusals[i] === undefined);
      const written = allowed.length === 0 ? [] : await inner.record(allowed);
      let next = 0;
      return events.map((_, i) => {
        const error = refusals[i];
        return error ? { ok: false, error } : written[next++]!;
      });
    },
  };
}
