/**
 * How a Watch stream ends: RESOURCE_EXHAUSTED for a watcher that stops reading (it resumes from its
 * last cursor), UNAVAILABLE when the feed closes at shutdown. Each test has its own registry.
 */
import type { registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, startRegistry, unique } from './helpers.js';
import { eventIds, flatten, watch, WATCH_KIND_EVENT_CREATED, type Msg } from './watch-harness.js';

const up = await postgresAvailable();

describe.skipIf(!up)('Watch', () => {
  it('ends a watcher that stops reading with RESOURCE_EXHAUSTED; it resumes from its last cursor without loss or duplicate', { timeout: 90_000 }, async () => {
    const db2 = await createTestDatabase();
    const c = await startRegistry({ databaseUrl: db2.url, watchMaxStallMs: 1000 });
    try {
      const device = unique('slow-reader');
      const request = { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined }, kinds: [WATCH_KIND_EVENT_CREATED], afterCursor: '' };
      const stream = c.client.watch(request);
      const received: Msg[] = [];
      stream.on('data', (m: registry.WatchResponse) => {
        received.push(...flatten(m));
        if (received.length === 1) stream.pause();
      });
      const ended = new Promise<{ code?: number; details?: string }>((resolve) => stream.on('error', resolve));
      const ids: string[] = [];
      // About 40 MB in messages of up to 256 KB: more than the HTTP/2 windows (16 MiB per connection,
      // http2-window.ts) and the 16 messages the server queues for one stream can hold.
      for (let i = 0; i < 25; i++) {
        const { events } = await c.api.recordEvents(Array.from({ length: 100 }, () => sampleEvent({ source: { deviceName: device }, additionalProperties: [{ key: 'pad', value: 'x'.repeat(16_000) }] })));
        ids.push(...events.map((e) => e!.id));
      }
      // The server gives up on the stalled stream; the client learns it once it reads what it had buffered.
      await new Promise((r) => setTimeout(r, 2500));
      stream.resume();
      // A failure that says where it stopped, rather than the test's own timeout.
      let timer: NodeJS.Timeout | undefined;
      const giveUp = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the stalled stream did not end within 30 s of resuming (${eventIds(received).length} of ${ids.length} events received)`)), 30_000);
      });
      const err = await Promise.race([ended, giveUp]).finally(() => clearTimeout(timer));
      expect(err.code).toBe(8); // RESOURCE_EXHAUSTED
      expect(eventIds(received).length).toBeLessThan(ids.length);
      expect(err.details).toMatch(/resume from the last message/);
      // Node may have buffered a few messages before the pause took effect: they count as received.
      const cursor = received.at(-1)!.cursor;
      const seen = eventIds(received);
      const resumed = watch(c, { ...request, afterCursor: cursor });
      await resumed.until((m) => seen.length + eventIds(m).length >= ids.length);
      expect([...seen, ...eventIds(resumed.messages)]).toEqual(ids);
      resumed.stop();
    } finally {
      await c.close();
      await db2.drop();
    }
  });

  it('ends open watches with UNAVAILABLE when the feed closes (shutdown), so clients resume elsewhere', async () => {
    const db2 = await createTestDatabase();
    const c = await startRegistry({ databaseUrl: db2.url });
    const w = watch(c);
    await w.until((m) => m.length >= 1);
    await c.server.watching.close();
    const err = await w.ended;
    expect(err?.code).toBe('UNAVAILABLE');
    await c.close();
    await db2.drop();
  });
});
