/**
 * The list and stream endpoints over HTTP with a fake registry: parameters checked here (400 naming
 * the parameter), what reaches the registry, the response shapes, auth, and the SSE framing.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { API, CREATED_AT, startGateway, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ token: 'secret-token' });
});
afterAll(() => gw.close());
afterEach(() => {
  gw.registry.failWith = undefined;
  gw.registry.watchMessages = [];
});

const auth = { Authorization: 'Bearer secret-token' };
async function get(path: string, headers: Record<string, string> = auth) {
  const response = await fetch(`${gw.url}${API}${path}`, { headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('GET list endpoints', () => {
  it('lists events in the POST shape with next_page_token, passing filters, limit and order on exactly', async () => {
    expect((await gw.post(validBody(), auth)).status).toBe(200);
    const { status, json } = await get('/dynamic-events?domain=acme.camera.motion&device_name=cam-1&limit=1&order=asc&since=2026-01-01T00:00:00.5%2B01:00&until=2026-12-31T23:59:59.123456789Z&page_token=abc');
    expect(status).toBe(200);
    expect(json.events).toEqual([expect.objectContaining({ domain: 'acme.camera.motion', created_at: CREATED_AT, event_additional_properties: expect.any(Object) })]);
    expect(json).toHaveProperty('next_page_token', null);
    expect(gw.registry.lastQuery).toEqual({
      deviceName: 'cam-1',
      object: undefined,
      domain: 'acme.camera.motion',
      eventType: undefined,
      since: { seconds: String(Date.UTC(2025, 11, 31, 23) / 1000), nanos: 500_000_000 },
      until: { seconds: String(Date.UTC(2026, 11, 31, 23, 59, 59) / 1000), nanos: 123_456_789 },
      limit: 1,
      pageToken: 'abc',
      oldestFirst: true,
      byOccurrence: false,
    });
  });

  it('lists devices, objects and event types in the single-read shapes', async () => {
    expect((await get('/devices')).json).toEqual({ devices: expect.arrayContaining([expect.objectContaining({ kind: 'generic' })]), next_page_token: null });
    expect((await get('/objects?device_name=none')).json).toEqual({ objects: [], next_page_token: null });
    expect(((await get('/event-types?domain=acme.camera.motion')).json.event_types as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers 400 naming the parameter for unknown, repeated or malformed parameters', async () => {
    const cases: Array<[string, string]> = [
      ['/dynamic-events?devce_name=x', 'devce_name'],
      ['/dynamic-events?limit=0', 'limit'],
      ['/dynamic-events?limit=1001', 'limit'],
      ['/dynamic-events?limit=ten', 'limit'],
      ['/dynamic-events?since=yesterday', 'since'],
      ['/dynamic-events?until=2026-02-30T00:00:00Z', 'until'],
      // Round up into year 10000: nothing past 9999-12-31T23:59:59.999999Z is stored or written back.
      ['/dynamic-events?until=9999-12-31T23:59:59.9999999Z', 'until'],
      ['/dynamic-events?since=9999-12-31T23:59:59.999999999Z', 'since'],
      ['/dynamic-events?since=0001-01-01T00:00:00%2B00:01', 'since'],
      ['/dynamic-events?since=2026-01-01T00:00:00', 'since'],
      ['/dynamic-events?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
      ['/dynamic-events?order=newest', 'order'],
      ['/dynamic-events?domain=a&domain=b', 'domain'],
      ['/devices?domain=x', 'domain'],
      ['/objects?limit=-1', 'limit'],
      ['/dynamic-events/stream?kinds=event.deleted', 'kinds'],
    ];
    for (const [path, parameter] of cases) {
      const { status, json } = await get(path);
      expect(status, path).toBe(400);
      expect(json.error, path).toContain(parameter);
    }
  });

  it("passes the registry's INVALID_ARGUMENT for a bad page_token on as 400 and needs the token", async () => {
    gw.registry.failWith = new AppError('INVALID_ARGUMENT', 'page_token is malformed', { field: 'page_token' });
    expect(await get('/dynamic-events?page_token=zz')).toEqual({ status: 400, json: refusal('page_token is malformed', { field: 'page_token' }) });
    expect((await get('/dynamic-events', {})).status).toBe(401);
    expect((await get('/dynamic-events/stream', {})).status).toBe(401);
  });
});

/** Opens the stream and collects its body until `count` frames arrived or it ended. */
function stream(path: string, headers: Record<string, string>, until: (body: string) => boolean) {
  return new Promise<{ status: number; type: string | undefined; body: string; ended: boolean }>((resolve, reject) => {
    const req = httpRequest(`${gw.url}${API}${path}`, { headers: { ...auth, ...headers } }, (res) => {
      let body = '';
      const done = (ended: boolean) => {
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body, ended });
        req.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
        if (until(body)) done(false);
      });
      res.on('end', () => done(true));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET dynamic-events/stream', () => {
  it('frames each change as id/event/data and keep-alives as comments; Last-Event-ID wins over ?after=', async () => {
    const event = { id: 'e1', domain: 'd', eventType: 't', rels: ['/objects/d.o'], images: [], videoClips: [], properties: [{ key: 'k', value: 'v\nw' }], createdAt: CREATED_AT, updatedAt: CREATED_AT, tokenId: null, occurredAt: null };
    gw.registry.watchMessages = [
      { cursor: 'c0', changes: [] },
      {
        cursor: 'c2',
        changes: [
          { cursor: 'c1', kind: 'device.created', device: { deviceName: 'cam', kind: 'generic', createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: null, lastSeenAt: null } },
          { cursor: 'c2', kind: 'event.created', event },
        ],
      },
    ];
    const res = await stream('/dynamic-events/stream?after=from-query&kinds=event.created,device.created', { 'Last-Event-ID': 'from-header' }, (b) => b.includes('id: c2'));
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/event-stream; charset=utf-8');
    expect(res.body).toContain(': keep-alive\n\n');
    expect(res.body).toContain(`id: c1\nevent: device.created\ndata: {"device_name":"cam","kind":"generic","created_at":"${CREATED_AT}","updated_at":"${CREATED_AT}","created_by_token_id":null,"last_seen_at":null}\n\n`);
    expect(res.body).toContain('id: c2\nevent: event.created\ndata: {"id":"e1","domain":"d","event_type":"t","rels":["/objects/d.o"],"images":[],"video_clips":[],"event_additional_properties":{"k":"v\\nw"}');
    // Changes of one message come as consecutive frames, in order.
    expect(res.body.indexOf('id: c1')).toBeLessThan(res.body.indexOf('id: c2'));
    expect(gw.registry.lastQuery).toMatchObject({ afterCursor: 'from-header', kinds: ['event.created', 'device.created'] });
  });

  it('answers 400 naming Last-Event-ID or after when the registry refuses the cursor', async () => {
    gw.registry.failWith = new AppError('INVALID_ARGUMENT', 'after_cursor is malformed', { field: 'after_cursor' });
    expect(await get('/dynamic-events/stream?after=x')).toEqual({ status: 400, json: refusal('after is malformed', { field: 'after' }) });
    const viaHeader = await get('/dynamic-events/stream', { ...auth, 'Last-Event-ID': 'x' });
    expect(viaHeader).toEqual({ status: 400, json: refusal('Last-Event-ID is malformed', { field: 'Last-Event-ID' }) });
  });

  it('ends open streams cleanly when shutdown starts', async () => {
    gw.registry.watchMessages = [{ cursor: 'c0', changes: [] }];
    const open = stream('/dynamic-events/stream', {}, () => false);
    await new Promise((r) => setTimeout(r, 200));
    gw.draining.abort();
    const res = await open;
    expect(res.ended).toBe(true);
    expect(res.body).toContain(': keep-alive');
  });
});
