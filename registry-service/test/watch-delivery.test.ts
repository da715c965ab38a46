/**
 * Watch over two registry replicas on one PostgreSQL database: the first keep-alive, keep-alives while
 * nothing matches, catching up from an old cursor, and the INVALID_ARGUMENT bad cursors get.
 */
import type { registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, type TestRegistry } from './helpers.js';
import { editCursor, eventIds, useTwoReplicas, watch, WATCH_KIND_DEVICE_CREATED, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();

describe.skipIf(!up)('Watch', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  useTwoReplicas((first, second) => {
    a = first;
    b = second;
  });

  it('starts with a keep-alive, then yields what another replica commits, with the created device first', async () => {
    const w = watch(b);
    await w.until((m) => m.length >= 1);
    expect(w.messages[0]!.keepAlive).toBeDefined();
    const device = unique('cam');
    const { event } = await a.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
    await w.until((m) => eventIds(m).includes(event!.id));
    const changes = w.messages.filter((m) => !m.keepAlive);
    expect(changes[0]).toMatchObject({ kind: WATCH_KIND_DEVICE_CREATED, device: { deviceName: device } });
    expect(changes.at(-1)).toMatchObject({ kind: WATCH_KIND_EVENT_CREATED, event: { id: event!.id, deviceName: device } });
    w.stop();
  });

  it('sends keep-alives while nothing matches, each carrying a cursor to resume from', async () => {
    const w = watch(a, { filter: { deviceName: unique('nobody'), object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } });
    await w.until((m) => m.filter((x) => x.keepAlive).length >= 3);
    expect(w.messages.every((m) => m.keepAlive && m.cursor !== '')).toBe(true);
    w.stop();
  });

  it('a watcher that fell 1,000 events behind catches up from its cursor page by page, without loss or duplicate', async () => {
    const device = unique('behind');
    const onlyDevice = { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined }, kinds: [WATCH_KIND_EVENT_CREATED] };
    const first = watch(a, onlyDevice);
    await first.until((m) => m.length >= 1);
    first.stop();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { events } = await b.api.recordEvents(Array.from({ length: 100 }, () => sampleEvent({ source: { deviceName: device }, additionalProperties: [{ key: 'pad', value: 'x'.repeat(4000) }] })));
      ids.push(...events.map((e) => e!.id));
    }
    const w = watch(a, { ...onlyDevice, afterCursor: first.messages[0]!.cursor });
    await w.until((m) => eventIds(m).length >= ids.length);
    expect(eventIds(w.messages)).toEqual(ids);
    w.stop();
  });

  it('refuses bad cursors, kinds and filters with INVALID_ARGUMENT naming the field', async () => {
    await a.api.recordEvents([sampleEvent(), sampleEvent()]);
    const listed = await a.api.listEvents({ pageSize: 1 });
    const start = watch(a);
    await start.until((m) => m.length >= 1);
    start.stop();
    const own = start.messages[0]!.cursor;
    const cases: Array<[Partial<registry.WatchRequest>, string]> = [
      [{ afterCursor: 'garbage!' }, 'after_cursor'],
      [{ afterCursor: listed.nextPageToken }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { s: '999999999' }) }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { l: '00000000-0000-4000-8000-000000000000' }) }, 'after_cursor'],
      [{ afterCursor: editCursor(own, { i: -1 }) }, 'after_cursor'],
      [{ kinds: [0] }, 'kinds'],
      [{ filter: { deviceName: '', object: '', domain: '', eventType: '', since: { seconds: '1', nanos: 0 }, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined } }, 'since'],
      [{ filter: { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: { seconds: '1', nanos: 0 }, occurredUntil: undefined } }, 'occurred_since'],
      [{ filter: { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: { seconds: '1', nanos: 0 } } }, 'occurred_until'],
    ];
    for (const [request, field] of cases) {
      const err = await watch(a, request).ended;
      expect(err?.code, field).toBe('INVALID_ARGUMENT');
      expect(err?.details.field).toBe(field);
    }
  });
});
