/**
 * occurred_at over gRPC on a real PostgreSQL: stored to the microsecond, answered by RecordEvent,
 * GetEvent, ListEvents (filtered and ordered by it) and the per-event results of RecordEvents.
 */
import { formatTimestamp, registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

const at = (seconds: number, nanos = 0) => ({ seconds: String(seconds), nanos });
/** An EventFilter with every field set (empty strings do not filter). */
const filterOf = (fields: Partial<registry.EventFilter>): registry.EventFilter => ({
  deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined,
  occurredSince: undefined, occurredUntil: undefined, ...fields,
});
const BASE = Math.floor(Date.UTC(2026, 0, 1) / 1000);

describe.skipIf(!up)('occurred_at over gRPC', () => {
  it('is stored to the microsecond (rounded up) and answered by RecordEvent and GetEvent; unset stays unset', async () => {
    const recorded = (await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('cam') }, occurredAt: at(BASE, 123_456_789) }))).event!;
    expect(formatTimestamp(recorded.occurredAt)).toBe('2026-01-01T00:00:00.123457000Z');
    expect((await t.api.getEvent(recorded.id)).event).toEqual(recorded);
    const { rows } = await t.pool.query<{ ts: string }>(`SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS ts FROM events WHERE id = $1`, [recorded.id]);
    expect(rows[0]!.ts).toBe('2026-01-01T00:00:00.123457');
    const plain = (await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('cam') } }))).event!;
    expect(plain.occurredAt).toBeUndefined();
    expect((await t.api.getEvent(plain.id)).event!.occurredAt).toBeUndefined();
  });

  it('refuses, in its own result, an event before 1970 or beyond the skew; the others are recorded', async () => {
    const device = unique('cam');
    const future = Math.floor(Date.now() / 1000) + 3600;
    const { results } = await t.api.recordEvents([
      sampleEvent({ source: { deviceName: device }, occurredAt: at(-1) }),
      sampleEvent({ source: { deviceName: device }, occurredAt: at(BASE) }),
      sampleEvent({ source: { deviceName: device }, occurredAt: at(future) }),
    ]);
    expect(results[0]!.error).toMatchObject({ code: 3, field: 'event.occurred_at', rule: 'min' });
    expect(formatTimestamp(results[1]!.recorded!.event!.occurredAt)).toBe('2026-01-01T00:00:00.000000000Z');
    expect(results[2]!.error).toMatchObject({ code: 3, field: 'event.occurred_at', rule: 'max-skew', message: 'event.occurred_at must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)' });
  });

  it('lists answer it, filter by occurred_since/occurred_until and order by it in keyset pages', async () => {
    const device = unique('backlog');
    // Sent out of order, as a backlog lands: created_at order is not occurrence order.
    const offsets = [30, 10, 50, 20, 40];
    for (const offset of offsets) await t.api.recordEvent(sampleEvent({ source: { deviceName: device }, occurredAt: at(BASE + offset) }));
    await t.api.recordEvent(sampleEvent({ source: { deviceName: device } }));
    const filter = filterOf({ deviceName: device, occurredSince: at(BASE + 10), occurredUntil: at(BASE + 50) });
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await t.api.listEvents({ filter, pageSize: 2, pageToken, orderBy: registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT, order: registry.SortOrder.SORT_ORDER_OLDEST_FIRST });
      seen.push(...page.events.map((e) => formatTimestamp(e.occurredAt)));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual([10, 20, 30, 40].map((s) => formatTimestamp(at(BASE + s))));
    const newest = await t.api.listEvents({ filter: filterOf({ deviceName: device }), orderBy: registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT });
    expect(newest.events.map((e) => Number(e.occurredAt!.seconds) - BASE)).toEqual([50, 40, 30, 20, 10]);
    const byCreation = await t.api.listEvents({ filter: filterOf({ deviceName: device }), order: registry.SortOrder.SORT_ORDER_OLDEST_FIRST });
    expect(byCreation.events.map((e) => (e.occurredAt ? Number(e.occurredAt.seconds) - BASE : null))).toEqual([...offsets, null]);
  });

  it('orders a domain-scoped list (a token policy\'s patterns) by occurred_at too', async () => {
    const domain = `${unique('scoped')}.cam`;
    for (const offset of [3, 1, 2]) await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('cam'), objectDomain: domain }, occurredAt: at(BASE + offset) }));
    const filter = filterOf({ domainPatterns: { values: [domain.split('.')[0] + '.*'] } });
    const page = await t.api.listEvents({ filter, orderBy: registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT, order: registry.SortOrder.SORT_ORDER_OLDEST_FIRST, pageSize: 2 });
    expect(page.events.map((e) => Number(e.occurredAt!.seconds) - BASE)).toEqual([1, 2]);
    const next = await t.api.listEvents({ filter, orderBy: registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT, order: registry.SortOrder.SORT_ORDER_OLDEST_FIRST, pageSize: 2, pageToken: page.nextPageToken });
    expect(next.events.map((e) => Number(e.occurredAt!.seconds) - BASE)).toEqual([3]);
  });

  it('refuses a page token of the created_at order in the occurred_at order', async () => {
    const device = unique('cam');
    for (let i = 0; i < 3; i++) await t.api.recordEvent(sampleEvent({ source: { deviceName: device }, occurredAt: at(BASE + i) }));
    const filter = filterOf({ deviceName: device });
    const first = await t.api.listEvents({ filter, pageSize: 1 });
    await expect(t.api.listEvents({ filter, pageSize: 1, pageToken: first.nextPageToken, orderBy: registry.EventOrderBy.EVENT_ORDER_BY_OCCURRED_AT })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: expect.objectContaining({ field: 'page_token' }),
    });
  });
});
