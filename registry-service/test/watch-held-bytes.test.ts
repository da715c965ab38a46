/**
 * Watch streams whose clients read nothing hold a bounded number of bytes in the registry, all of
 * them together (the server's stream budget): once the bound is reached, a stream beyond its share
 * is ended with RESOURCE_EXHAUSTED (reset with ENHANCE_YOUR_CALM while its client still holds data
 * back), long before the stall limit, and a reader resuming from the same cursor misses nothing.
 */
import { connect, constants } from 'node:http2';
import { pollUntil } from '@dynamic-events/proto/runtime';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, startRegistry, unique } from './helpers.js';
import { eventIds, watch, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();
const MiB = 1024 * 1024;

/** A Watch after `cursor` on a raw HTTP/2 session whose answers are never read (its window stays shut). */
function nonReader(address: string, cursor: string) {
  const session = connect(`http://${address}`);
  session.on('error', () => {});
  const stream = session.request({ ':method': 'POST', ':path': '/dynamic_events.registry.v1.RegistryService/Watch', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => {});
  const text = Buffer.from(cursor);
  // WatchRequest { after_cursor (field 3) } in a gRPC frame; a cursor is shorter than 128 bytes.
  const message = Buffer.concat([Buffer.from([0x1a, text.length]), text]);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  stream.end(Buffer.concat([head, message]));
  stream.pause();
  let status: string | undefined;
  stream.on('trailers', (trailers) => (status = String(trailers['grpc-status'])));
  return { ended: () => stream.closed, reset: () => stream.rstCode, status: () => status, close: () => session.destroy() };
}

describe.skipIf(!up)('Watch streams that read nothing', () => {
  it('are cut at the registry\'s bound of held bytes with RESOURCE_EXHAUSTED; a reader from the same cursor gets every event', { timeout: 90_000 }, async () => {
    const db = await createTestDatabase();
    const c = await startRegistry({ databaseUrl: db.url, watchHeldBytes: 3 * MiB, watchMaxStallMs: 120_000 });
    try {
      const device = unique('held-bytes');
      const filter = { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined };
      const now = watch(c, { filter, kinds: [WATCH_KIND_EVENT_CREATED] });
      await now.until((m) => m.length >= 1);
      const cursor = now.messages[0]!.cursor;
      now.stop();
      // Twelve events of about 1 MiB, each its own commit and its own Watch message.
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const properties = Array.from({ length: 64 }, (_, p) => ({ key: `p${p}`, value: `${i}-${p}-`.padEnd(16_000, 'q') }));
        const { events } = await c.api.recordEvents([sampleEvent({ source: { deviceName: device }, additionalProperties: properties })]);
        ids.push(events[0]!.id);
      }
      const budget = c.server.grpc.streamBudget;
      let most = 0;
      const stuck = Array.from({ length: 4 }, () => nonReader(c.address, cursor));
      await pollUntil('a stream that read nothing is cut', async () => {
        most = Math.max(most, budget.held);
        return stuck.some((s) => s.ended());
      }, { timeoutMs: 30_000, intervalMs: 20 });
      const cut = stuck.find((s) => s.ended())!;
      expect(cut.reset() === constants.NGHTTP2_ENHANCE_YOUR_CALM || cut.status() === '8').toBe(true);
      // The bound, plus the one message a stream holding nothing may still take.
      expect(most).toBeLessThanOrEqual(4 * MiB + 64 * 1024);
      const reader = watch(c, { filter, kinds: [WATCH_KIND_EVENT_CREATED], afterCursor: cursor });
      await reader.until((m) => eventIds(m).length >= ids.length);
      expect(eventIds(reader.messages)).toEqual(ids);
      reader.stop();
      for (const s of stuck) s.close();
    } finally {
      await c.close();
      await db.drop();
    }
  });
});
