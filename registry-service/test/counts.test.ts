/**
 * The counts' rollup and CountEvents on a real PostgreSQL: the buckets of every width equal a GROUP
 * BY over the events themselves, each event counted once over many passes, the 20 largest groups
 * with the rest as other, last_seen_at only moving forward, retention deleting count rows past
 * EVENT_RETENTION and keeping commits the pass has not counted.
 */
import { registry, timestampFromMicros, type Timestamp } from '@dynamic-events/proto';
import { callUnary } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { createRetention } from '../src/jobs/retention.js';
import { sampleEvent, silent, startRegistry, unique, type TestRegistry } from './helpers.js';
import { countAllCommits } from './counts-support.js';

const up = await postgresAvailable();
const HOUR_US = 3_600_000_000n;
const nowUs = () => BigInt(Date.now()) * 1000n;
const filter = (f: Partial<registry.EventFilter>): registry.EventFilter => ({
  deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined, ...f,
});
const ts = (us: bigint): Timestamp => timestampFromMicros(us);
const W = registry.CountBucketWidth;
const G = registry.CountGroupBy;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestRegistry;
beforeAll(async () => {
  if (!up) return;
  db = await createTestDatabase();
  t = await startRegistry({ databaseUrl: db.url, eventRetentionSeconds: 10 * 86_400 });
});
afterAll(async () => {
  await t?.close();
  await db?.drop();
});

const count = (request: Partial<registry.CountEventsRequest>) =>
  callUnary(t.client.countEvents.bind(t.client), { filter: filter({}), bucket: W.COUNT_BUCKET_WIDTH_HOUR, groupBy: G.COUNT_GROUP_BY_UNSPECIFIED, ...request }, { deadlineMs: 10_000 });
const rollUpAll = () => countAllCommits(t);
/** Records `n` events of `device` and moves their created_at to `atUs` + i seconds (before they are counted). */
async function recordAt(device: string, n: number, atUs: bigint, eventType = 'motion'): Promise<void> {
  const { events } = await t.api.recordEvents(Array.from({ length: n }, () => sampleEvent({ source: { deviceName: device }, eventType: { eventType } })));
  await t.pool.query(`UPDATE events SET created_at = to_timestamp($2::float8 / 1e6) + make_interval(secs => array_position($1::uuid[], id))
                      WHERE id = ANY($1::uuid[])`, [events.map((e) => e!.id), atUs.toString()]);
}

describe.skipIf(!up)('counts: the rollup pass and CountEvents', () => {
  it('every bucket of minute, hour and day equals a GROUP BY over the events, after many passes', async () => {
    const device = unique('cam');
    const base = nowUs() - 3n * 86_400_000_000n;
    for (let i = 0; i < 6; i++) {
      await recordAt(device, 7 + i, base + BigInt(i) * 5n * HOUR_US + BigInt(i * 17) * 60_000_000n);
      await rollUpAll();
    }
    for (const [width, unit] of [[W.COUNT_BUCKET_WIDTH_MINUTE, 'minute'], [W.COUNT_BUCKET_WIDTH_HOUR, 'hour'], [W.COUNT_BUCKET_WIDTH_DAY, 'day']] as const) {
      const since = unit === 'minute' ? base + 5n * 5n * HOUR_US : base - HOUR_US;
      const answer = await count({ filter: filter({ deviceName: device, since: ts(since), until: ts(since + (unit === 'minute' ? HOUR_US * 2n : 4n * 86_400_000_000n)) }), bucket: width });
      const { rows } = await t.pool.query<{ start: Date; n: string }>(
        `SELECT date_trunc($2, created_at, 'UTC') AS start, count(*) AS n FROM events WHERE device_name = $1 AND created_at >= date_trunc($2, to_timestamp($3::float8 / 1e6), 'UTC') GROUP BY 1`,
        [device, unit, since.toString()],
      );
      const expected = new Map(rows.map((r) => [r.start.getTime(), Number(r.n)]));
      const got = new Map(answer.buckets.filter((b) => b.total !== '0').map((b) => [Number(b.start!.seconds) * 1000, Number(b.total)]));
      expect(got, unit).toEqual(new Map([...expected].filter(([ms]) => ms < Number(since / 1000n) + (unit === 'minute' ? 7_200_000 : 4 * 86_400_000))));
    }
    const all = await count({ filter: filter({ deviceName: device, since: ts(base - HOUR_US) }), bucket: W.COUNT_BUCKET_WIDTH_DAY });
    expect(all.buckets.reduce((n, b) => n + Number(b.total), 0)).toBe(7 + 8 + 9 + 10 + 11 + 12);
  });

  it('lists the 20 largest groups over the range, largest first, and the rest as other per bucket', async () => {
    const device = unique('many');
    const at = nowUs() - 2n * HOUR_US;
    for (let i = 0; i < 23; i++) await recordAt(device, 1 + (i % 3), at + BigInt(i) * 60_000_000n, `kind_${String(i).padStart(2, '0')}`);
    await rollUpAll();
    const answer = await count({ filter: filter({ deviceName: device, since: ts(at - HOUR_US) }), groupBy: G.COUNT_GROUP_BY_EVENT_TYPE });
    expect(answer.groups).toHaveLength(20);
    // 3 events for i % 3 == 2, in name order among equals.
    expect(answer.groups.slice(0, 7)).toEqual(['kind_02', 'kind_05', 'kind_08', 'kind_11', 'kind_14', 'kind_17', 'kind_20']);
    const total = answer.buckets.reduce((n, b) => n + Number(b.total), 0);
    const listed = answer.buckets.reduce((n, b) => n + b.groups.reduce((m, g) => m + Number(g.count), 0), 0);
    expect(total).toBe(45);
    expect(Number(answer.other)).toBe(total - listed);
    expect(answer.buckets.reduce((n, b) => n + Number(b.other), 0)).toBe(total - listed);
    // Three of the smallest groups (one event each) are left out: other is 3.
    expect(Number(answer.other)).toBe(3);
  });
});

describe.skipIf(!up)('counts: last_seen_at and retention', () => {
  it('moves last_seen_at of the device and the object to their latest event, never back', async () => {
    const device = unique('seen');
    const at = nowUs() - HOUR_US;
    await recordAt(device, 3, at);
    await rollUpAll();
    const seen = async () => (await t.pool.query<{ us: string }>(`SELECT floor(extract(epoch FROM last_seen_at) * 1e6)::int8 AS us FROM devices WHERE device_name = $1`, [device])).rows[0]!.us;
    expect(BigInt(await seen())).toBe((at / 1_000_000n) * 1_000_000n + 3_000_000n + (at % 1_000_000n));
    const { device: got } = await t.api.getDevice(device);
    expect(got?.lastSeenAt).toEqual(timestampFromMicros(BigInt(await seen())));
    await recordAt(device, 1, at - 10n * HOUR_US);
    await rollUpAll();
    expect(BigInt(await seen())).toBe((at / 1_000_000n) * 1_000_000n + 3_000_000n + (at % 1_000_000n));
  });

  it('retention deletes count rows past EVENT_RETENTION and keeps the commits the pass has not counted', async () => {
    const device = unique('old');
    await recordAt(device, 4, nowUs() - 20n * 86_400_000_000n);
    await rollUpAll();
    const rows = async () => Number((await t.pool.query(`SELECT count(*) AS n FROM event_counts WHERE device_name = $1`, [device])).rows[0].n);
    expect(await rows()).toBe(3);
    const retention = createRetention({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, eventRetentionSeconds: 10 * 86_400, watchRetentionSeconds: 1 });
    // Commits after the cursor are the pass's queue: held back from the watch-history purge.
    const cursor = (await t.pool.query<{ through: string }>('SELECT rolled_through AS through FROM event_rollup_state')).rows[0]!.through;
    await t.pool.query('UPDATE event_rollup_state SET rolled_through = 0');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await retention.runOnce();
    expect(await rows()).toBe(0);
    expect(Number((await t.pool.query('SELECT count(*) AS n FROM commit_log')).rows[0].n)).toBeGreaterThan(0);
    await t.pool.query('UPDATE event_rollup_state SET rolled_through = $1', [cursor]);
    await retention.runOnce();
    expect(Number((await t.pool.query('SELECT count(*) AS n FROM commit_log WHERE seq <= $1', [cursor])).rows[0].n)).toBe(0);
  });

  it('with the pass off (COUNTS_INTERVAL_MS=0), retention purges the watch history without waiting for it', async () => {
    await recordAt(unique('off'), 2, nowUs());
    await t.pool.query('UPDATE event_rollup_state SET rolled_through = 0');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const off = createRetention({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, eventRetentionSeconds: undefined, watchRetentionSeconds: 1, countsKept: false });
    expect((await off.runOnce()).commits).toBeGreaterThan(0);
  });
});
