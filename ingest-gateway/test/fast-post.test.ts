/**
 * The POST fast path (src/http/fast-post.ts) against the Koa route it bypasses: the same request at
 * the exact path (fast path) and with a trailing slash (the Koa router, which ignores it) must get
 * the same status, body, headers, log line and metrics, limits and shutdown included (a token over
 * its rate, bodies in flight over their budget, Connection: close while draining). And the fast path
 * alone, without Koa behind it.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { createLogger, listenHttp } from '@dynamic-events/proto/runtime';
import { createFastPost } from '../src/http/fast-post.js';
import { createMetrics } from '../src/metrics.js';
import { createAuthenticator } from '../src/tokens/authenticator.js';
import { createRateLimiter } from '../src/tokens/rate-limit.js';
import { createDynamicEventPost } from '../src/http/routes/dynamic-events.js';
import { fakeTokens } from './fake-tokens.js';
import { API, fakeMedia, fakeRegistry, mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { resetFakes } from './http-setup.js';
import { refusal } from './refusal.js';

const TOKEN = 'fast-path-secret';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** One raw request (node:http: header case and repeated headers as sent), its answer in full. */
function send(url: string, headers: Record<string, string>, body: Buffer | string) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What must match between both paths: ids and dates differ per request, the rest may not. */
function comparable(answer: Awaited<ReturnType<typeof send>>) {
  const { date: _date, 'x-request-id': requestId, ...headers } = answer.headers;
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  if (typeof body.id === 'string') body.id = '<id>';
  return { status: answer.status, headers, body, requestIdSent: requestId === 'rid-1' };
}

/**
 * The same request at the exact path (fast path), then with a trailing slash (Koa): the answers and
 * access lines must match. Answers the fast path's answer, for what the case itself expects of it.
 */
async function bothAlike(gw: TestGateway, headers: Record<string, string>, body: () => Buffer | string) {
  const fast = await send(`${gw.url}${API}/dynamic-events`, headers, body());
  const fastLine = gw.logs.at(-1);
  const koa = await send(`${gw.url}${API}/dynamic-events/`, headers, body());
  const koaLine = gw.logs.at(-1);
  expect(comparable(fast)).toEqual(comparable(koa));
  expect(JSON.parse(fast.body)).toHaveProperty(fast.status === 200 ? 'id' : 'error');
  // The access line: same route pattern and status, whichever path answered.
  expect({ ...fastLine, requestId: 0, durationMs: 0, time: 0 }).toEqual({ ...koaLine, requestId: 0, durationMs: 0, time: 0 });
  return fast;
}

const CASES: Array<[string, Record<string, string>, () => Buffer | string, (gw: TestGateway) => void]> = [
  ['a valid event', { ...auth, 'x-request-id': 'rid-1' }, () => JSON.stringify(validBody()), () => {}],
  ['no token', { 'content-type': 'application/json' }, () => JSON.stringify(validBody()), () => {}],
  ['a wrong token', { ...auth, authorization: 'Bearer nope' }, () => JSON.stringify(validBody()), () => {}],
  ['a malformed Authorization', { ...auth, authorization: 'Basic abc' }, () => JSON.stringify(validBody()), () => {}],
  ['text/plain', { ...auth, 'content-type': 'text/plain' }, () => JSON.stringify(validBody()), () => {}],
  ['invalid JSON', auth, () => '{"source":', () => {}],
  ['a body over the limit', auth, () => JSON.stringify({ pad: 'x'.repeat(70 * 1024) }), () => {}],
  ['a schema error', auth, () => JSON.stringify(mutate((b) => delete b.source.device_name)), () => {}],
  ['invalid UTF-8', auth, () => Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), () => {}],
  ['a gzip body', { ...auth, 'content-encoding': 'gzip' }, () => gzipSync(JSON.stringify(validBody())), () => {}],
  ['an unknown Content-Encoding', { ...auth, 'content-encoding': 'zstd' }, () => JSON.stringify(validBody()), () => {}],
  ['a registry outage', auth, () => JSON.stringify(validBody()), (gw) => (gw.registry.failWith = new AppError('UNAVAILABLE', 'registry unavailable'))],
  ['an internal failure', auth, () => JSON.stringify(validBody()), (gw) => (gw.registry.failWith = new Error('secret internal detail'))],
];

describe('POST fast path and Koa route answer alike', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ token: TOKEN, maxBodyBytes: 64 * 1024 });
  });
  afterAll(() => gw.close());
  afterEach(() => resetFakes(gw));

  it.each(CASES)('%s', async (_name, headers, body, arrange) => {
    arrange(gw);
    await bothAlike(gw, headers, body);
  });

  it('counts both in the same http_requests_total series', async () => {
    await send(`${gw.url}${API}/dynamic-events`, auth, JSON.stringify(validBody()));
    const metrics = await fetch(gw.metricsUrl).then((r) => r.text());
    expect(metrics).toMatch(/http_requests_total\{method="POST",route="\/api\/platform\/dh\/dynamic-events",status_class="2xx"\} \d+/);
  });
});

const KIB = 1024;

/** Polls until `done` holds (the gateway sees another connection's request when it sees it). */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await done()); ) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends a POST's headers and the first byte of a `length`-byte body, and holds the rest back. */
function holdBody(url: string, secret: string, length: number): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST ${pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

describe('POST fast path and Koa route answer alike at their limits and while draining', () => {
  const tokens = fakeTokens();
  const free = { 'content-type': 'application/json', authorization: `Bearer ${tokens.add('vendor-free')}` };
  const limited = { ...free, authorization: `Bearer ${tokens.add('vendor-x', { policy: { rate: { perSecond: 0.01, burst: 1 } } })}` };
  const event = () => JSON.stringify(validBody());
  let gw: TestGateway;
  beforeAll(async () => {
    const limitRate = createRateLimiter({ redis: undefined, logger: createLogger('test', 'silent'), metrics: createMetrics() });
    gw = await startGateway({ tokens: { client: tokens.client, source: tokens.source }, limitRate, maxBodyBytes: 64 * KIB, maxInflightBodyBytes: 64 * KIB });
  });
  afterAll(() => gw.close());

  it('a token over its rate: 429 with Retry-After, on both', async () => {
    // One clock for both requests, so that both are told the same wait.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      expect((await send(`${gw.url}${API}/dynamic-events`, limited, event())).status).toBe(200);
      const fast = await bothAlike(gw, limited, event);
      expect([fast.status, fast.headers['retry-after']]).toEqual([429, '100']);
      expect(JSON.parse(fast.body)).toEqual(refusal("token 'vendor-x' is over its rate of 0.01 events per second (burst 1)", { field: false, rule: 'token-rate' }));
    } finally {
      clock.mockRestore();
    }
  });

  it('bodies in flight over MAX_INFLIGHT_BODY_BYTES: 503 with Retry-After, on both', async () => {
    const holder = await holdBody(`${gw.url}${API}/dynamic-events`, free.authorization.slice('Bearer '.length), 64 * KIB);
    try {
      await until(async () => (await send(`${gw.url}${API}/dynamic-events`, free, event())).status === 503);
      const fast = await bothAlike(gw, free, event);
      expect([fast.status, fast.headers['retry-after']]).toEqual([503, '1']);
      expect(JSON.parse(fast.body)).toEqual({ error: 'too many request bodies in flight; retry later' });
    } finally {
      holder.destroy();
    }
    // Given back once the held request is over, on either path.
    await until(async () => (await send(`${gw.url}${API}/dynamic-events`, free, event())).status === 200);
  });

  it('once shutdown started: Connection: close on an event and on a refusal, on both', async () => {
    gw.draining.abort();
    const recorded = await bothAlike(gw, free, event);
    const refused = await bothAlike(gw, { ...free, authorization: 'Bearer nope' }, event);
    expect([recorded.status, recorded.headers.connection]).toEqual([200, 'close']);
    expect([refused.status, refused.headers.connection]).toEqual([401, 'close']);
  });
});

describe('the fast path alone', () => {
  const logger = createLogger('ingest-gateway', 'silent');
  const metrics = createMetrics();
  const registry = fakeRegistry();
  const post = createDynamicEventPost({
    base: API,
    authenticate: createAuthenticator({ token: undefined, metrics }),
    registry,
    media: fakeMedia(),
    maxBodyBytes: 64 * 1024,
    maxImageBytes: 1024,
    maxInflightBodyBytes: 1024 * 1024,
    publicBaseUrl: 'http://localhost',
    occurredAtMaxSkewSeconds: 300,
  });
  const draining = new AbortController();
  const fast = createFastPost(post, { logger, metrics, draining: draining.signal });
  // Whatever the fast path leaves is answered 418 here, so a test sees who answered.
  const server = createServer((req, res) => {
    if (!fast(req, res)) res.writeHead(418).end('{"error":"not the fast path"}');
  });
  let url = '';
  beforeAll(async () => {
    url = `http://127.0.0.1:${await listenHttp(server, 0, '127.0.0.1')}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('takes the exact path, with or without a query string, and nothing else', async () => {
    const ok = { 'content-type': 'application/json' };
    const body = JSON.stringify(validBody());
    expect((await send(`${url}${API}/dynamic-events`, ok, body)).status).toBe(200);
    expect((await send(`${url}${API}/dynamic-events?x=1`, ok, body)).status).toBe(200);
    for (const path of [`${API}/dynamic-events/`, `${API}/Dynamic-Events`, `${API}/dynamic-eventsX`, `${API}/dynamic-events%2F`, '/']) {
      expect((await send(`${url}${path}`, ok, body)).status, path).toBe(418);
    }
    const get = await fetch(`${url}${API}/dynamic-events`);
    expect(get.status).toBe(418);
  });

  it('closes the connection of every answer once draining started', async () => {
    draining.abort();
    const answer = await send(`${url}${API}/dynamic-events`, { 'content-type': 'application/json' }, JSON.stringify(validBody()));
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('close');
  });
});
