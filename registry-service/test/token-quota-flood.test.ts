/**
 * A quota set while the token floods first sightings, over real gRPC and PostgreSQL: once UpdateToken
 * answered, no event sent afterwards takes the token past its max_objects / max_devices, and the
 * counter on the token's row equals what the token created, whatever was in flight at the change.
 */
import { describe, expect, it } from 'vitest';
import type { registry } from '@dynamic-events/proto';
import { postgresAvailable } from '../../test/support/servers.js';
import { countRows, sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { tokenApi, type TokenApi } from './token-api.js';

const up = await postgresAvailable();

let t: TestRegistry;
let tokens: TokenApi;
if (up) {
  useFreshRegistry((started) => {
    t = started;
    tokens = tokenApi(started.address);
  });
}

const WORKERS = 8;
/** Attempts per worker once the quota is answered: more than any quota below leaves room for. */
const ATTEMPTS_AFTER = 15;

type Kind = 'objects' | 'devices';
const column = { objects: 'objects_created', devices: 'devices_created' } as const;

interface Flood {
  /** Creations of the kind by events sent after UpdateToken answered. */
  createdAfter: number;
  /** Creations acknowledged before UpdateToken was sent. */
  createdBefore: number;
  /** Refusals of events sent after the answer, by rule. */
  rulesAfter: Set<string | undefined>;
}

/**
 * WORKERS loops of first sightings (a new device and object each) by `tokenId`; once `patchAfter`
 * creations were acknowledged, `patch(createdBefore)` runs while the loops go on, and each loop
 * sends ATTEMPTS_AFTER more events once it answered.
 */
async function flood(tokenId: string, kind: Kind, patchAfter: number, patch: (createdBefore: number) => Promise<unknown>): Promise<Flood> {
  const result: Flood = { createdAfter: 0, createdBefore: 0, rulesAfter: new Set() };
  let acknowledged = 0;
  let patching: Promise<unknown> | undefined;
  let answered = false;
  const worker = async () => {
    for (let after = 0; after < ATTEMPTS_AFTER; ) {
      const sentAfter = answered;
      const event = sampleEvent({ source: { deviceName: unique('dev'), objectId: unique('obj'), objectDomain: 'acme.quota' }, eventType: { eventType: 'flood' }, tokenId });
      const outcome = await t.api.recordEvent(event).then(
        (r) => ({ created: kind === 'objects' ? r.outcome!.objectCreated : r.outcome!.deviceCreated, rule: undefined }),
        (err: { details?: { rule?: string } }) => ({ created: false, rule: err.details?.rule ?? String(err) }),
      );
      if (sentAfter) {
        after++;
        if (outcome.created) result.createdAfter++;
        else result.rulesAfter.add(outcome.rule);
      } else if (outcome.created && ++acknowledged >= patchAfter && !patching) {
        result.createdBefore = acknowledged;
        patching = patch(acknowledged).then(() => (answered = true));
      }
      // Events in flight at the change may be refused; none answered before it was sent.
      if (!patching && outcome.rule !== undefined) throw new Error(`refused before the quota: ${outcome.rule}`);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  await patching;
  return result;
}

const policyOf = (kind: Kind, max: number): registry.TokenPolicy => ({
  mayCreate: undefined,
  domains: undefined,
  rate: undefined,
  ...(kind === 'objects' ? { maxObjects: String(max) } : { maxDevices: String(max) }),
});

/** The token's stored counter of `kind` and how many rows of that kind it created. */
async function counted(tokenId: string, kind: Kind): Promise<{ counter: number; rows: number }> {
  const { rows } = await t.pool.query<{ n: string }>(`SELECT ${column[kind]} AS n FROM tokens WHERE id = $1`, [tokenId]);
  return { counter: Number(rows[0]!.n), rows: await countRows(t.pool, kind, 'created_by_token_id = $1', [tokenId]) };
}

describe.skipIf(!up)('a quota set during a flood of first sightings', () => {
  for (const kind of ['objects', 'devices'] as const) {
    it(`max_${kind} below what the token created: nothing sent after the answer creates one, and the counter is the count`, async () => {
      const token = (await tokens.create({ name: unique('flood') })).token!;
      const quota = 10;
      const seen = await flood(token.id, kind, 2 * quota, () => tokens.update({ id: token.id, policy: policyOf(kind, quota) }));
      // The token had created more than the quota when it was set: every later creation is refused.
      expect(seen.createdAfter).toBe(0);
      expect(seen.rulesAfter).toEqual(new Set([`token-max-${kind}`]));
      const { counter, rows } = await counted(token.id, kind);
      expect(counter).toBe(rows);
    });

    it(`max_${kind} above what the token created: it reaches the quota exactly, never more`, async () => {
      const token = (await tokens.create({ name: unique('flood') })).token!;
      let quota = 0;
      // At most WORKERS creations are in flight at the change: the quota leaves room above them.
      await flood(token.id, kind, 20, (before) => tokens.update({ id: token.id, policy: policyOf(kind, (quota = before + WORKERS + 10)) }));
      const { counter, rows } = await counted(token.id, kind);
      expect(rows).toBe(quota);
      expect(counter).toBe(rows);
    });
  }
});
