/**
 * Watch over two registry replicas on one PostgreSQL database: an event never arrives before the
 * first sighting of its device, whatever the order of the transaction ids or event ids.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { insertRecordBatch } from '../src/db/queries/record-events.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { unique, type TestRegistry } from './helpers.js';
import { batch, eventIds, useTwoReplicas, watch, WATCH_KIND_EVENT_CREATED, type Msg } from './watch-harness.js';

const up = await postgresAvailable();

describe.skipIf(!up)('Watch', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  useTwoReplicas((first, second) => {
    a = first;
    b = second;
  });

  it('a statement waiting for an in-flight first sighting of its device comes after it, whatever their event ids', async () => {
    const device = unique('late');
    const w = watch(b, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await w.until((m) => m.length >= 1);
    const oldId = uuidv7(Date.now() - 60_000);
    const newId = uuidv7();
    // The transaction holding the older id is in flight (its statement ran, no COMMIT yet)...
    const slow = await a.pool.connect();
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(oldId, device));
    // ...while the newer one's statement runs on the other replica: it must wait, not overtake.
    const fast = insertRecordBatch(b.pool, batch(newId, device));
    await new Promise((r) => setTimeout(r, 400));
    expect(eventIds(w.messages)).not.toContain(newId);
    await slow.query('COMMIT');
    slow.release();
    await fast;
    await w.until((m) => eventIds(m).includes(newId));
    const ids = eventIds(w.messages);
    expect(ids.indexOf(oldId)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(oldId)).toBeLessThan(ids.indexOf(newId));
    // A watcher resuming from the keep-alive cursor taken before both gets both, in the same order.
    const resumed = watch(a, { afterCursor: w.messages[0]!.cursor, kinds: [WATCH_KIND_EVENT_CREATED] });
    await resumed.until((m) => eventIds(m).includes(newId));
    expect(eventIds(resumed.messages)).toEqual(ids);
    w.stop();
    resumed.stop();
  });

  it('never delivers an event before the device.created it refers to, even when its transaction id is the older one', async () => {
    const device = unique('causal');
    const w = watch(a);
    await w.until((m) => m.length >= 1);
    // B takes its transaction id first, then waits for A's uncommitted first sighting of the device.
    const older = await b.pool.connect();
    const newer = await a.pool.connect();
    await older.query('BEGIN');
    await older.query('SELECT pg_current_xact_id()');
    await newer.query('BEGIN');
    const creator = uuidv7();
    await insertRecordBatch(newer, batch(creator, device, unique('o')));
    const follower = uuidv7();
    const waiting = insertRecordBatch(older, batch(follower, device, unique('o')));
    await new Promise((r) => setTimeout(r, 200));
    await newer.query('COMMIT');
    await waiting;
    await older.query('COMMIT');
    newer.release();
    older.release();
    await w.until((m) => eventIds(m).includes(follower));
    const changes = w.messages.filter((m) => !m.keepAlive);
    const at = (test: (m: Msg) => boolean) => changes.findIndex(test);
    const created = at((m) => m.device?.deviceName === device);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(at((m) => m.event?.id === follower));
    expect(at((m) => m.event?.id === creator)).toBeLessThan(at((m) => m.event?.id === follower));
    w.stop();
  });
});
