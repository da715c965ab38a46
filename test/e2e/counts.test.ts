/**
 * Counts over time, last_seen_at and q= search, end to end over HTTP on the whole stack (a fresh
 * database of the machine's PostgreSQL, the counts' pass every 200 ms): buckets with their groups
 * and per-bucket other, at most 20 groups, a domain-restricted token's counts within its domains,
 * 400s naming the parameter, last_seen_at on the GETs and lists of devices and objects, and q= on
 * the entity lists.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { useStackOnFreshDatabase, type FreshStack } from '../support/fresh-stack.js';
import { assertMatchesSchema } from '../support/openapi.js';
import { postgresAvailable } from '../support/servers.js';
import { getJson, postJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
let ctx: FreshStack;
let api = '';
/** Headers of an unrestricted token, and of one reading the domain acme.door only. */
let platform: Record<string, string> = {};
let doorReader: Record<string, string> = {};

async function createToken(name: string, policy: Record<string, unknown>): Promise<Record<string, string>> {
  const res = await fetch(`${api}/settings/dynamic-events/tokens`, {
    method: 'POST',
    headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' },
    body: JSON.stringify({ name, policy }),
  });
  expect(res.status).toBe(201);
  return bearer(String(((await res.json()) as { token: string }).token));
}

interface Counts {
  buckets: Array<{ start: string; total: number; groups: Record<string, number>; other: number }>;
  other: number;
  groups: string[];
}

const post = async (event: ReturnType<typeof exampleEvent>) => {
  const res = await postJson(`${api}/dynamic-events`, event, platform);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; created_at: string };
};
const counts = (query: string, headers = platform) => getJson(`${api}/dynamic-events/counts?${query}`, headers);
/** Polls until the counts' total reaches `total` (the pass trails the events). */
async function countsReaching(query: string, total: number, headers = platform): Promise<Counts> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await counts(query, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body as Counts;
    const sum = body.buckets.reduce((n, b) => n + b.total, 0);
    if (sum >= total || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

describe.skipIf(!up)('counts over time, last_seen_at and q=, end to end', () => {
  ctx = useStackOnFreshDatabase('e2e-counts', { ADMIN_TOKEN, COUNTS_INTERVAL_MS: '200' });
  beforeAll(async () => {
    api = ctx.stack.api;
    platform = await createToken('platform', {});
    doorReader = await createToken('door-reader', { domains: ['acme.door'] });
  });

  it('counts per minute bucket by event type: every bucket of the range, the groups, other per bucket and overall', async () => {
    for (let i = 0; i < 3; i++) await post(exampleEvent({ device: 'count-cam-a', eventType: 'motion' }));
    for (let i = 0; i < 2; i++) await post(exampleEvent({ device: 'count-cam-b', eventType: 'person' }));
    const query = `since=${encodeURIComponent(hourAgo())}&bucket=minute&group_by=event_type&domain=acme.camera.video`;
    const body = await countsReaching(query, 5);
    assertMatchesSchema('EventCounts', body);
    expect(body.buckets.length).toBeGreaterThanOrEqual(60);
    expect(body.buckets.length).toBeLessThanOrEqual(62);
    const starts = body.buckets.map((b) => Date.parse(b.start));
    starts.forEach((s, i) => (i > 0 ? expect(s - (starts[i - 1] ?? 0)).toBe(60_000) : expect(s % 60_000).toBe(0)));
    const sum = (pick: (b: Counts['buckets'][number]) => number) => body.buckets.reduce((n, b) => n + pick(b), 0);
    expect(sum((b) => b.total)).toBe(5);
    expect(sum((b) => b.groups.motion ?? 0)).toBe(3);
    expect(sum((b) => b.groups.person ?? 0)).toBe(2);
    expect(body.groups).toEqual(['motion', 'person']);
    expect(body.other).toBe(0);
    // Hour buckets and device groups say the same.
    const byDevice = await countsReaching(`since=${encodeURIComponent(hourAgo())}&group_by=device_name`, 5);
    expect(byDevice.groups).toEqual(['count-cam-a', 'count-cam-b']);
    expect(byDevice.buckets.reduce((n, b) => n + (b.groups['count-cam-b'] ?? 0), 0)).toBe(2);
  });

  it('lists the 20 largest groups and counts the rest as other, per bucket and overall', async () => {
    const device = 'count-many-types';
    for (let i = 0; i < 22; i++) await post(exampleEvent({ device, eventType: `type_${String(i).padStart(2, '0')}` }));
    await post(exampleEvent({ device, eventType: 'type_21' }));
    const body = await countsReaching(`since=${encodeURIComponent(hourAgo())}&bucket=day&group_by=event_type&device_name=${device}`, 23);
    expect(body.groups).toHaveLength(20);
    expect(body.groups[0]).toBe('type_21');
    const total = body.buckets.reduce((n, b) => n + b.total, 0);
    const grouped = body.buckets.reduce((n, b) => n + Object.values(b.groups).reduce((m, x) => m + x, 0), 0);
    expect(total).toBe(23);
    expect(body.other).toBe(2);
    expect(total - grouped).toBe(2);
    expect(body.buckets.reduce((n, b) => n + b.other, 0)).toBe(2);
  });

  it('answers a domain-restricted token within its domains only', async () => {
    await post(exampleEvent({ device: 'count-door', domain: 'acme.door', eventType: 'opened' }));
    const mine = await countsReaching(`since=${encodeURIComponent(hourAgo())}&bucket=day&group_by=domain`, 1, doorReader);
    expect(mine.groups).toEqual(['acme.door']);
    expect(mine.buckets.reduce((n, b) => n + b.total, 0)).toBe(1);
    expect((await counts(`since=${encodeURIComponent(hourAgo())}&domain=acme.camera.video`, doorReader)).status).toBe(403);
  });

  it('refuses bad parameters with a 400 naming the parameter and the rule', async () => {
    const since = encodeURIComponent(hourAgo());
    const cases: Array<[string, RegExp]> = [
      [`since=${since}&bucket=week`, /^bucket must be one of minute, hour, day/],
      [`since=${since}&group_by=zone`, /^group_by must be one of/],
      ['bucket=hour', /^since is required/],
      [`since=yesterday`, /^since must be an RFC 3339 timestamp/],
      [`since=${since}&object=acme.camera.video.channel-1`, /^counts cannot filter by object/],
      [`since=${since}&occurred_since=${since}`, /^counts cannot filter by occurred_since/],
      [`since=2026-01-01T00:00:00Z&until=2026-01-03T00:00:00Z&bucket=minute`, /^the range holds 2880 buckets of a minute; at most 1500/],
      [`since=${since}&limit=5`, /^limit is not a known parameter/],
    ];
    for (const [query, message] of cases) {
      const res = await counts(query);
      expect(res.status, query).toBe(400);
      expect(String((res.body as { error: string }).error), query).toMatch(message);
    }
  });

  it('gives devices and objects last_seen_at, the time of their latest event, on their GETs and lists', async () => {
    const admin = platform;
    const latest = await post(exampleEvent({ device: 'seen-cam', objectId: 'seen-channel' }));
    const deadline = Date.now() + 15_000;
    let device: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      device = (await getJson(`${api}/devices/seen-cam`, admin)).body as Record<string, unknown>;
      if (device.last_seen_at === latest.created_at) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(device.last_seen_at).toBe(latest.created_at);
    const object = (await getJson(`${api}/objects/acme.camera.video.seen-channel`, admin)).body as Record<string, unknown>;
    expect(object.last_seen_at).toBe(latest.created_at);
    assertMatchesSchema('Device', device);
    assertMatchesSchema('Object', object);
    const listed = (await getJson(`${api}/devices?q=seen-cam`, admin)).body as { devices: Array<Record<string, unknown>> };
    expect(listed.devices.map((d) => [d.device_name, d.last_seen_at])).toEqual([['seen-cam', latest.created_at]]);
    const objects = (await getJson(`${api}/objects?device_name=seen-cam`, admin)).body as { objects: Array<Record<string, unknown>> };
    expect(objects.objects.map((o) => o.last_seen_at)).toEqual([latest.created_at]);
  });

  it('q= keeps the devices, objects and event types whose name or id holds it, ignoring case; wildcards are text', async () => {
    const admin = platform;
    await post(exampleEvent({ device: 'Search-Lobby_North', objectId: 'lobby-ch', eventType: 'glass_break' }));
    await post(exampleEvent({ device: 'search-lobbyXnorth', objectId: 'other-ch' }));
    const names = async (path: string, key: string, pick: (r: Record<string, unknown>) => unknown) =>
      (((await getJson(`${api}${path}`, admin)).body as Record<string, Array<Record<string, unknown>>>)[key] ?? []).map(pick);
    expect(await names('/devices?q=LOBBY', 'devices', (d) => d.device_name)).toEqual(['Search-Lobby_North', 'search-lobbyXnorth']);
    expect(await names('/devices?q=lobby_n', 'devices', (d) => d.device_name)).toEqual(['Search-Lobby_North']);
    expect(await names('/devices?q=%25', 'devices', (d) => d.device_name)).toEqual([]);
    expect(await names('/objects?q=LOBBY-CH', 'objects', (o) => o.id)).toEqual(['acme.camera.video.lobby-ch']);
    expect(await names('/objects?q=entrance%20camera&device_name=search-lobbyXnorth', 'objects', (o) => o.id)).toEqual(['acme.camera.video.other-ch']);
    expect(await names('/event-types?q=GLASS', 'event_types', (t) => t.event_type)).toEqual(['glass_break']);
    expect(await names('/event-types?q=video.glass', 'event_types', (t) => t.event_type)).toEqual(['glass_break']);
    const paged = await getJson(`${api}/devices?q=search-&limit=1`, admin);
    const token = (paged.body as { next_page_token: string }).next_page_token;
    expect((await getJson(`${api}/devices?q=lobby&limit=1&page_token=${encodeURIComponent(token)}`, admin)).status).toBe(400);
    expect(await names(`/devices?q=search-&limit=1&page_token=${encodeURIComponent(token)}`, 'devices', (d) => d.device_name)).toEqual(['search-lobbyXnorth']);
  });
});
