/**
 * What a domain-restricted token reads, end to end over HTTP on the whole stack (a fresh database of
 * the machine's PostgreSQL): its lists without `domain=` answer its domains only, through every page;
 * its stream of an allowed domain receives that domain's changes and never another's; a PATCH that
 * narrows its domains ends its streams outside the new domains at once (this gateway served
 * the PATCH) with an `unauthorized` frame saying why, while a stream still allowed goes on.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { useStackOnFreshDatabase, type FreshStack } from '../support/fresh-stack.js';
import { postgresAvailable } from '../support/servers.js';
import { openSse, type SseFrame, type SseStream } from '../support/sse.js';
import { getJson, postJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
/** The README's promise for an access change reaching open streams. */
const PROMISE_MS = 5000;
const VENDOR_DOMAINS = ['acme.camera.*', 'acme.door'];

interface Token { id: string; secret: string }
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
let ctx: FreshStack;
let api = '';
const tokens = {} as Record<'platform' | 'vendor', Token>;

async function admin(method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${api}/settings/dynamic-events${path}`, { method, headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function createToken(name: string, policy: Record<string, unknown> = {}): Promise<Token> {
  const res = await admin('POST', '/tokens', { name, policy });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: String(res.body.id), secret: String(res.body.token) };
}
const post = async (secret: string, domain: string, device = 'cam-platform') => {
  const res = await postJson(`${api}/dynamic-events`, exampleEvent({ domain, device }), bearer(secret));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return String(res.body?.id);
};
const stream = (secret: string, query = '') => openSse(`${api}/dynamic-events/stream${query}`, bearer(secret));
/** Every item of a list, `limit` at a time, following next_page_token. */
async function listAll(secret: string, path: string, key: string, limit = 2): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let token: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await getJson(`${api}${path}${sep}limit=${limit}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`, bearer(tokens.vendor.secret));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...(res.body?.[key] as Array<Record<string, unknown>>));
    token = res.body?.next_page_token as string | null;
  } while (token !== null);
  return items;
}
/** The domain each change frame of a stream carries (device frames have none: `device`). */
const domainsOf = (frames: SseFrame[]) =>
  frames.filter((f) => f.event?.endsWith('.created')).map((f) => {
    const data = JSON.parse(f.data ?? '{}') as { domain?: string; object_domain?: string };
    return f.event === 'device.created' ? 'device' : (data.domain ?? data.object_domain ?? '?');
  });
const sawEvent = (s: SseStream, id: string) => s.until((frames) => frames.some((f) => f.event === 'event.created' && f.data?.includes(id)), 15_000);

describe.skipIf(!up)('a domain-restricted token reads its domains only, end to end', () => {
  ctx = useStackOnFreshDatabase('e2e-read-scope', { ADMIN_TOKEN });
  beforeAll(async () => {
    api = ctx.stack.api;
    tokens.platform = await createToken('platform');
    tokens.vendor = await createToken('vendor', { domains: VENDOR_DOMAINS });
  });

  it('its stream of an allowed domain receives that domain only; its stream without domain= its domains only', async () => {
    const camera = await stream(tokens.vendor.secret, '?domain=acme.camera.video');
    const across = await stream(tokens.vendor.secret);
    expect([camera.status, across.status]).toEqual([200, 200]);
    expect((await stream(tokens.vendor.secret, '?domain=globex.door')).status).toBe(403);
    for (const domain of ['globex.door', 'acme.camera.thermal', 'acme.doorbell', 'acme.door', 'acme.camera']) await post(tokens.platform.secret, domain);
    const last = await post(tokens.platform.secret, 'acme.camera.video', 'cam-last');
    await Promise.all([sawEvent(camera, last), sawEvent(across, last)]);
    camera.close();
    across.close();
    expect(new Set(domainsOf(camera.frames))).toEqual(new Set(['acme.camera.video']));
    expect(new Set(domainsOf(across.frames))).toEqual(new Set(['acme.camera.thermal', 'acme.door', 'acme.camera.video']));
  });

  it('its lists without domain= answer its domains only, through every page; devices it created', async () => {
    await post(tokens.vendor.secret, 'acme.camera.thermal', 'cam-vendor');
    const allowed = (domain: unknown) => domain === 'acme.door' || String(domain).startsWith('acme.camera.');
    const events = await listAll(tokens.vendor.secret, '/dynamic-events', 'events');
    expect(events.length).toBe(4);
    expect(events.every((e) => allowed(e.domain))).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const objects = await listAll(tokens.vendor.secret, '/objects', 'objects');
    expect(objects.map((o) => o.object_domain).sort()).toEqual(['acme.camera.thermal', 'acme.camera.video', 'acme.door']);
    const types = await listAll(tokens.vendor.secret, '/event-types', 'event_types');
    expect(types.map((t) => t.domain).sort()).toEqual(['acme.camera.thermal', 'acme.camera.video', 'acme.door']);
    expect((await listAll(tokens.vendor.secret, '/devices', 'devices')).map((d) => d.device_name)).toEqual(['cam-vendor']);
    expect((await getJson(`${api}/dynamic-events?domain=globex.door`, bearer(tokens.vendor.secret))).status).toBe(403);
  });

  it('a PATCH narrowing its domains ends the streams outside the new domains at once, with the reason; a stream still allowed goes on', async () => {
    const across = await stream(tokens.vendor.secret);
    const door = await stream(tokens.vendor.secret, '?domain=acme.door');
    const camera = await stream(tokens.vendor.secret, '?domain=acme.camera.video');
    const platform = await stream(tokens.platform.secret);
    const narrowing = performance.now();
    expect((await admin('PATCH', `/tokens/${tokens.vendor.id}`, { policy: { domains: ['acme.camera.*'] } })).status).toBe(200);
    expect((await admin('PATCH', `/tokens/${tokens.platform.id}`, { policy: { domains: ['globex.*'] } })).status).toBe(200);
    for (const ended of [across, door, platform]) {
      await ended.until((frames) => frames.at(-1)?.event === 'unauthorized', 15_000);
      await ended.ended;
      expect(ended.frames.at(-1)?.data).toBe(JSON.stringify({ error: 'token domains narrowed' }));
      expect(ended.frames.at(-1)!.at - narrowing).toBeLessThan(PROMISE_MS);
    }
    const next = await post(tokens.vendor.secret, 'acme.camera.video', 'cam-vendor');
    await sawEvent(camera, next);
    camera.close();
    expect(camera.frames.some((f) => f.event === 'unauthorized')).toBe(false);
  });
});
