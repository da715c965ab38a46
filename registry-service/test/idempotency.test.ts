/**
 * Idempotency-Key in the registry, over real gRPC servers on a real PostgreSQL database: a retry
 * gets the recorded event back without a second row, another request with the key is refused,
 * concurrent calls (in one process, in one call, across two replicas) record exactly once, the key
 * survives a restart, and the purge removes expired keys only.
 */
import { AppError, fromItemStatus, registry } from '@dynamic-events/proto';
import { describe, expect, it, vi } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { createKeyPurger } from '../src/jobs/idempotency-purge.js';
import { countRows, sampleEvent, silent, startRegistry, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

/** A sample event on its own device, carrying `key` with the fingerprint `hash`. */
function keyed(device: string, key: string, hash: string, plate = 'AB-123-CD'): registry.NewEvent {
  return sampleEvent({ source: { deviceName: device }, additionalProperties: [{ key: 'plate', value: plate }], idempotencyKey: key, requestHash: hash });
}

async function outcomeCount(t: TestRegistry, outcome: string): Promise<number> {
  const data = await t.metrics.idempotencyKeys.get();
  return data.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

// One registry on a fresh database for the Idempotency-Key describes below.
let t: TestRegistry;
let databaseUrl: string;
if (up) {
  useFreshRegistry((started, url) => {
    t = started;
    databaseUrl = url;
  });
}

describe.skipIf(!up)('Idempotency-Key', () => {
  it('records the first request; the same key and hash again returns the same event, nothing created, one row', async () => {
    const device = unique('idem-same');
    const key = unique('key');
    const first = await t.api.recordEvent(keyed(device, key, 'h1'));
    expect(first.outcome).toMatchObject({ deviceCreated: true, objectCreated: true });
    const replayedBefore = await outcomeCount(t, 'replayed');
    const again = await t.api.recordEvent(keyed(device, key, 'h1'));
    expect(again.event).toEqual(first.event);
    expect(again.outcome).toEqual({ deviceCreated: false, objectCreated: false, eventTypeCreated: false });
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
    expect(await countRows(t.pool, 'idempotency_keys', 'key = $1 AND event_id = $2 AND scope = $3', [key, first.event!.id, ''])).toBe(1);
    expect(await outcomeCount(t, 'replayed')).toBe(replayedBefore + 1);
  });

  it('refuses the same key with another request hash (ALREADY_EXISTS) and stores nothing', async () => {
    const device = unique('idem-other');
    const key = unique('key');
    await t.api.recordEvent(keyed(device, key, 'h1'));
    const conflictsBefore = await outcomeCount(t, 'conflict');
    const err = await refusal(t.api.recordEvent(keyed(`${device}-2`, key, 'h2', 'ZZ-999')));
    expect(err.code).toBe('ALREADY_EXISTS');
    expect(err.message).toBe('Idempotency-Key was already used for a different request');
    expect(err.details).toMatchObject({ field: 'Idempotency-Key', rule: 'key-reused' });
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
    expect(await countRows(t.pool, 'devices', 'device_name = $1', [`${device}-2`])).toBe(0);
    expect(await outcomeCount(t, 'conflict')).toBe(conflictsBefore + 1);
  });

  it('records exactly one event for 20 concurrent calls with one key; every answer carries its id', async () => {
    const device = unique('idem-race');
    const key = unique('key');
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.api.recordEvent(keyed(device, key, 'h'))));
    const ids = new Set(answers.map((a) => a.event!.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.outcome!.deviceCreated)).toHaveLength(1);
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
  });
});

describe.skipIf(!up)('Idempotency-Key: inside one call, cost, and bad keys', () => {
  it('inside one RecordEvents call: keyless events recorded, a key once, its duplicate replayed, another hash refused', async () => {
    const device = unique('idem-batch');
    const key = unique('key');
    const { results, events } = await t.api.recordEvents([
      sampleEvent({ source: { deviceName: device } }),
      keyed(device, key, 'h'),
      keyed(device, key, 'h'),
      keyed(device, key, 'other'),
      sampleEvent({ source: { deviceName: device } }),
    ]);
    expect(events[1]!.id).toBe(events[2]!.id);
    const refused = fromItemStatus(results[3]!.error!) as AppError;
    expect([refused.code, refused.details.rule]).toEqual(['ALREADY_EXISTS', 'key-reused']);
    expect(new Set([events[0]!.id, events[1]!.id, events[4]!.id]).size).toBe(3);
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(3);
  });

  it('costs events without a key nothing: one statement, which does not touch idempotency_keys', async () => {
    const spy = vi.spyOn(t.pool, 'query');
    try {
      await t.api.recordEvents([0, 1].map((i) => sampleEvent({ source: { deviceName: unique('plain'), objectId: `o-${i}` } })));
      // Leaving out the health check and the watchers' wake-up (a NOTIFY after the commit).
      const texts = spy.mock.calls
        .map(([config]) => (typeof config === 'string' ? config : (config as { text: string }).text))
        .filter((text) => text !== 'SELECT 1' && !text.includes('pg_notify'));
      expect(texts).toHaveLength(1);
      expect(texts[0]).not.toContain('idempotency_keys');
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ['a key over 255 characters', 'k'.repeat(256), 'h', 'Idempotency-Key', 'max-length'],
    ['an empty key with a hash', '', 'h', 'Idempotency-Key', 'required'],
    ['a key of spaces', '   ', 'h', 'Idempotency-Key', 'required'],
    ['a non-ASCII key', 'clé', 'h', 'Idempotency-Key', 'characters'],
    ['a key with a control character', 'a\tb', 'h', 'Idempotency-Key', 'characters'],
    ['a key without a hash', 'k', '', 'request_hash', 'required'],
    ['a hash with a space', 'k', 'a b', 'request_hash', 'format'],
  ])('refuses %s with INVALID_ARGUMENT naming the field and rule, storing nothing', async (_, key, hash, field, rule) => {
    const device = unique('idem-bad');
    const err = await refusal(t.api.recordEvent(keyed(device, key, hash)));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.details).toMatchObject({ field, rule });
    expect(await countRows(t.pool, 'devices', 'device_name = $1', [device])).toBe(0);
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    const key = `${unique('k')}${'~'.repeat(255)}`.slice(0, 255);
    const first = await t.api.recordEvent(keyed(unique('idem-255'), key, 'h'));
    expect((await t.api.recordEvent(keyed(unique('idem-255'), key, 'h'))).event!.id).toBe(first.event!.id);
  });
});

describe.skipIf(!up)('Idempotency-Key: across restarts and replicas', () => {
  it('replays after a restart of the registry (the key lives in the database)', async () => {
    const device = unique('idem-restart');
    const key = unique('key');
    const other = await startRegistry({ databaseUrl });
    const first = await other.api.recordEvent(keyed(device, key, 'h'));
    await other.close();
    const restarted = await startRegistry({ databaseUrl });
    try {
      expect((await restarted.api.recordEvent(keyed(device, key, 'h'))).event!.id).toBe(first.event!.id);
      expect((await refusal(restarted.api.recordEvent(keyed(device, key, 'h2')))).code).toBe('ALREADY_EXISTS');
    } finally {
      await restarted.close();
    }
    expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
  });

  it('two replicas racing on one key: both statements overlap, one commits, the other replays it', async () => {
    const device = unique('idem-replicas');
    const key = unique('key');
    // Holds each key insert long enough that both replicas have looked the key up (and found nothing) first.
    await t.pool.query(`CREATE FUNCTION slow_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$`);
    await t.pool.query('CREATE TRIGGER slow_key BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION slow_key()');
    const second = await startRegistry({ databaseUrl });
    try {
      const replicas = [t, second];
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => replicas[i % 2]!.api.recordEvent(keyed(device, key, 'h'))));
      expect(new Set(answers.map((a) => a.event!.id)).size).toBe(1);
      expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(1);
      // The loser's statement hit the primary key and was answered from the winner's row.
      expect((await outcomeCount(t, 'replayed')) + (await outcomeCount(second, 'replayed'))).toBeGreaterThanOrEqual(9);
    } finally {
      await second.close();
      await t.pool.query('DROP TRIGGER slow_key ON idempotency_keys');
      await t.pool.query('DROP FUNCTION slow_key()');
    }
  });
});

describe.skipIf(!up)('purge of expired Idempotency-Keys', () => {
  it('deletes keys older than the TTL in batches, keeps younger keys and every event', async () => {
    const db = await createTestDatabase();
    const t = await startRegistry({ databaseUrl: db.url });
    try {
      const device = unique('purge');
      for (let i = 0; i < 7; i++) await t.api.recordEvent(keyed(device, `key-${i}`, 'h'));
      // Five keys are two hours old, two are fresh.
      await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '2 hours' WHERE key IN ('key-0','key-1','key-2','key-3','key-4')`);
      const purger = createKeyPurger({ pool: t.pool, logger: silent, metrics: t.metrics, ttlSeconds: 3600, batch: 2 });
      expect(await purger.runOnce()).toBe(5);
      const { rows } = await t.pool.query<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key');
      expect(rows.map((r) => r.key)).toEqual(['key-5', 'key-6']);
      expect(await countRows(t.pool, 'events', 'device_name = $1', [device])).toBe(7);
      expect((await t.metrics.idempotencyKeysPurged.get()).values[0]?.value).toBe(5);
      // A purged key is free again: the same key records a new event.
      const fresh = await t.api.recordEvent(keyed(device, 'key-0', 'h'));
      expect(await countRows(t.pool, 'idempotency_keys', 'key = $1 AND event_id = $2', ['key-0', fresh.event!.id])).toBe(1);
      expect(await purger.runOnce()).toBe(0);
    } finally {
      await t.close();
      await db.drop();
    }
  });
});
