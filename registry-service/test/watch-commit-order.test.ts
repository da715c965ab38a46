/**
 * Watch over two registry replicas on one PostgreSQL database with concurrent writers: a watcher that
 * keeps resuming gets every event once, and commits finishing out of number order arrive in number order.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { insertRecordBatch } from '../src/db/queries/record-events.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { sampleEvent, unique, type TestRegistry } from './helpers.js';
import { batch, eventIds, rankOf, useTwoReplicas, watch, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();

describe.skipIf(!up)('Watch', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  useTwoReplicas((first, second) => {
    a = first;
    b = second;
  });

  it('two replicas, concurrent writers, a watcher that keeps resuming from its last cursor: every event exactly once, cursors in commit order', async () => {
    const device = unique('race');
    const start = watch(a, { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } });
    await start.until((m) => m.length >= 1);
    let cursor = start.messages[0]!.cursor;
    start.stop();

    const written: string[] = [];
    const writers = (async () => {
      for (let round = 0; round < 6; round++) {
        const calls = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).api.recordEvent(sampleEvent({ source: { deviceName: device } })));
        for (const r of await Promise.all(calls)) written.push(r.event!.id);
      }
    })();
    // Reconnect every few messages, alternating replicas, always from the last cursor received.
    const received: string[] = [];
    const sequence: string[] = [];
    let writersDone = false;
    void writers.then(() => (writersDone = true));
    for (let hop = 0; !writersDone || received.length < written.length; hop++) {
      const w = watch(hop % 2 ? a : b, { afterCursor: cursor, kinds: [WATCH_KIND_EVENT_CREATED] });
      await w.until((m) => m.filter((x) => x.event).length >= 17 || (writersDone && received.length + eventIds(m).length >= written.length)).catch(() => undefined);
      w.stop();
      for (const m of w.messages) {
        if (m.event) received.push(m.event.id);
        sequence.push(m.cursor);
        cursor = m.cursor;
      }
      expect(hop).toBeLessThan(200);
    }
    await writers;
    expect(new Set(received).size).toBe(received.length);
    expect(new Set(received)).toEqual(new Set(written));
    // Cursors name (commit number, position): they must only grow along the way.
    const ranks = sequence.map(rankOf);
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]! >= ranks[i - 1]!).toBe(true);
  });

  it('holds back a commit numbered after one still in flight, then delivers both in number order; a rolled-back one leaves no hole', async () => {
    const w = watch(b, { kinds: [WATCH_KIND_EVENT_CREATED] });
    await w.until((m) => m.length >= 1);
    const [first, second, third] = [uuidv7(), uuidv7(), uuidv7()];
    // The first statement takes its number, then its transaction stays open (a slow commit)...
    const slow = await a.pool.connect();
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(first, unique('slow'), unique('o')));
    // ...while a later statement with nothing in common commits on the other replica: number order and commit order differ.
    await insertRecordBatch(b.pool, batch(second, unique('fast'), unique('o')));
    await new Promise((r) => setTimeout(r, 600));
    expect(eventIds(w.messages)).toEqual([]);
    await slow.query('COMMIT');
    await w.until((m) => eventIds(m).length >= 2);
    expect(eventIds(w.messages)).toEqual([first, second]);
    // A statement that rolls back after taking its number: later commits still arrive, nothing of it does.
    await slow.query('BEGIN');
    await insertRecordBatch(slow, batch(uuidv7(), unique('gone'), unique('o')));
    await insertRecordBatch(b.pool, batch(third, unique('after'), unique('o')));
    await slow.query('ROLLBACK');
    slow.release();
    await w.until((m) => eventIds(m).length >= 3);
    expect(eventIds(w.messages)).toEqual([first, second, third]);
    w.stop();
  });
});
