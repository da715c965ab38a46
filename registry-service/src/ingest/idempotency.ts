import { AppError, checkIdempotencyKey, IDEMPOTENCY_KEY_HEADER, invalidArgument } from '@dynamic-events/proto';
import { type ItemResult } from '@dynamic-events/proto/runtime';
import type pg from 'pg';
import { findIdempotencyKeys, findRequestHashes, KEY_IN_USE_RULE } from '../db/queries/idempotency-keys.js';
import { tokenIdFilter } from '../reads/list-filters.js';
import type { Metrics } from '../metrics.js';
import { toEventRecord } from '../reads/reads.js';
import type { EventRecorder } from './record-events.js';
import type { EventRecord, IdempotencyKey, NewEvent, RecordedEvent } from '../model.js';

type Result = ItemResult<RecordedEvent>;

/** What a key is known to have recorded: the fingerprint of its request and the event. */
interface Recorded {
  requestHash: string;
  event: EventRecord;
}

interface IdempotencyDeps {
  pool: pg.Pool;
  metrics: Metrics;
}

/** Scope and key are printable ASCII, so a newline cannot occur in either. */
const slotOf = (k: { scope: string; key: string }): string => `${k.scope}\n${k.key}`;

const isKeyInUse = (r: Result): boolean => !r.ok && r.error instanceof AppError && r.error.details.rule === KEY_IN_USE_RULE;

/** The answer to a key already committed: its event when the request is the same, else ALREADY_EXISTS. */
function decide(metrics: Metrics, key: IdempotencyKey, recorded: Recorded): Result {
  if (recorded.requestHash !== key.requestHash) {
    metrics.idempotencyKeys.inc({ outcome: 'conflict' });
    const message = `${IDEMPOTENCY_KEY_HEADER} was already used for a different request`;
    return { ok: false, error: new AppError('ALREADY_EXISTS', message, { field: IDEMPOTENCY_KEY_HEADER, rule: 'key-reused' }) };
  }
  metrics.idempotencyKeys.inc({ outcome: 'replayed' });
  return { ok: true, value: { event: recorded.event, outcome: { deviceCreated: false, objectCreated: false, eventTypeCreated: false } } };
}

/** Keys one FindRequestKeys call may ask about (a batch's events at most). */
const FIND_MAX_KEYS = 1000;

/**
 * FindRequestKeys: which of a token's keys were committed, and by which request (its hash). The
 * scope is the token id as RecordEvent scopes keys ('' without a token); each key is checked as an
 * Idempotency-Key. Writes nothing.
 */
export async function findRequestKeys(pool: pg.Pool, tokenId: string, keys: string[]): Promise<Array<{ key: string; requestHash: string }>> {
  // Checked as a token id, then used as sent: RecordEvent scopes keys by the id as sent too.
  if (tokenId !== '') tokenIdFilter(tokenId);
  const scope = tokenId;
  if (keys.length > FIND_MAX_KEYS) throw invalidArgument('idempotency_keys', 'max-items', `idempotency_keys must hold at most ${FIND_MAX_KEYS} keys`);
  keys.forEach((key) => checkIdempotencyKey(key));
  return keys.length === 0 ? [] : findRequestHashes(pool, scope, keys);
}

/** A call's events sorted by what their key allows now (indexes into the call's events). */
interface Claims {
  /** Without a key. */
  plain: number[];
  /** First with a key that was free: claimed in `inFlight` until `releases` run. */
  owners: number[];
  /** Repeating a key an earlier event of this call owns. */
  duplicates: Array<{ index: number; owner: number }>;
  /** With a key another call holds: decided once `held` settles. */
  waiting: Array<{ index: number; held: Promise<void> }>;
  releases: Array<() => void>;
}

function claimKeys(events: NewEvent[], inFlight: Map<string, Promise<void>>): Claims {
  const claims: Claims = { plain: [], owners: [], duplicates: [], waiting: [], releases: [] };
  const ownedHere = new Map<string, number>();
  events.forEach(({ idempotency: key }, index) => {
    if (key === undefined) return void claims.plain.push(index);
    const slot = slotOf(key);
    const owner = ownedHere.get(slot);
    if (owner !== undefined) return void claims.duplicates.push({ index, owner });
    const held = inFlight.get(slot);
    if (held !== undefined) return void claims.waiting.push({ index, held });
    ownedHere.set(slot, index);
    claims.owners.push(index);
    inFlight.set(slot, new Promise((resolve) => claims.releases.push(() => (inFlight.delete(slot), resolve()))));
  });
  return claims;
}

/**
 * Idempotency-Key around the recorder (the Stripe model). The first event with a key is recorded
 * and its key committed in the same statement; a later one with the same key and request hash gets
 * that event back (nothing written, no entity reported created); one with another hash is refused
 * with ALREADY_EXISTS. In this process, events sharing a key wait for the one in flight and then
 * decide; across replicas the key's primary key decides: the loser's statement fails on it, is
 * isolated by group commit, and looks the key up again. Calls without any key go straight through.
 */
export function createIdempotentRecorder(inner: EventRecorder, deps: IdempotencyDeps): EventRecorder {
  const { pool, metrics } = deps;
  /** Keys being decided in this process; resolved (and removed) once their owner's outcome is final. */
  const inFlight = new Map<string, Promise<void>>();

  /** The committed keys among `keys` (one query). */
  const lookUp = async (keys: IdempotencyKey[]): Promise<Map<string, Recorded>> => {
    const rows = await findIdempotencyKeys(pool, keys);
    return new Map(rows.map((row) => [slotOf(row), { requestHash: row.requestHash, event: toEventRecord(row.event) }]));
  };

  /** Decides `owners` (their keys are claimed in this process) and writes them with the keyless events. */
  async function settle(events: NewEvent[], owners: number[], plain: number[], results: Array<Result | undefined>): Promise<void> {
    const keyOf = (i: number): IdempotencyKey => events[i]!.idempotency!;
    const found = await lookUp(owners.map(keyOf)).catch((error: unknown) => {
      for (const i of owners) results[i] = { ok: false, error };
      return new Map<string, Recorded>();
    });
    const fresh = owners.filter((i) => results[i] === undefined && !found.has(slotOf(keyOf(i))));
    for (const i of owners) {
      const recorded = found.get(slotOf(keyOf(i)));
      if (recorded) results[i] = decide(metrics, keyOf(i), recorded);
    }
    const toWrite = [...plain, ...fresh];
    const written = await inner.record(toWrite.map((i) => events[i]!));
    toWrite.forEach((i, n) => (results[i] = written[n]));
    for (const i of fresh) if (results[i]?.ok) metrics.idempotencyKeys.inc({ outcome: 'recorded' });
    // Another replica committed the key first: its event is the answer (or the conflict).
    const raced = fresh.filter((i) => isKeyInUse(results[i]!));
    if (raced.length === 0) return;
    const again = await lookUp(raced.map(keyOf)).catch(() => new Map<string, Recorded>());
    for (const i of raced) {
      const recorded = again.get(slotOf(keyOf(i)));
      if (recorded) results[i] = decide(metrics, keyOf(i), recorded);
    }
  }

  async function recordWithKeys(events: NewEvent[]): Promise<Result[]> {
    const results: Array<Result | undefined> = events.map(() => undefined);
    const { plain, owners, duplicates, waiting, releases } = claimKeys(events, inFlight);
    try {
      await settle(events, owners, plain, results);
    } finally {
      for (const release of releases) release();
    }
    // A duplicate within this call is decided against its owner's event; if the owner failed, it tries on its own.
    for (const { index, owner } of duplicates) {
      const done = results[owner]!;
      if (done.ok) {
        const ownerKey = events[owner]!.idempotency!;
        results[index] = decide(metrics, events[index]!.idempotency!, { requestHash: ownerKey.requestHash, event: done.value.event });
      } else {
        waiting.push({ index, held: Promise.resolve() });
      }
    }
    // Events whose key another call held: decide again now that it is settled (committed, or free again).
    await Promise.all(
      waiting.map(async ({ index, held }) => {
        await held;
        results[index] = (await recordWithKeys([events[index]!]))[0];
      }),
    );
    return results as Result[];
  }

  return {
    record(events) {
      for (const event of events) if (event.idempotency !== undefined) return recordWithKeys(events);
      return inner.record(events);
    },
  };
}
