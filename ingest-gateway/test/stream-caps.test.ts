/**
 * The caps on open SSE streams: per token and per client address the next stream is answered 429,
 * beyond the gateway's total 503, each with Retry-After and the API's `{"error"}`, before any
 * registry stream is opened for it; a stream that ends (or is refused, or fails to start) gives
 * its place back. The admin credential's streams count for their client and the total.
 */
import { request, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { invalidArgument } from '@dynamic-events/proto';
import { pollUntil } from '@dynamic-events/proto/runtime';
import { API, startGateway, type GatewayOptions, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';
import { clientAddressOf } from '../src/watch/client-address.js';
import { refusal } from './refusal.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';

interface Opened {
  status: number;
  headers: IncomingMessage['headers'];
  body?: unknown;
  close(): void;
}

let gw: TestGateway | undefined;
let tokens: FakeTokens;
let watchCalls = 0;
let streams = 0;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function start(streamCaps: GatewayOptions['streamCaps'], requireToken = false): Promise<TestGateway> {
  tokens = fakeTokens();
  tokens.requireToken = requireToken;
  gw = await startGateway({ streamCaps, adminToken: ADMIN, tokens: { client: tokens.client, source: tokens.source } });
  gw.registry.watchMessages = [{ cursor: 'c0', changes: [] }];
  watchCalls = 0;
  const watch = gw.registry.watch.bind(gw.registry);
  gw.registry.watch = (query, call) => {
    watchCalls++;
    return watch(query, call);
  };
  return gw;
}

/** Opens a stream from `from` (a loopback address), each of another domain (a registry stream of its own): a 200 is kept open until close(). */
function open(from = '127.0.0.1', headers: Record<string, string> = {}, query = `?domain=d${++streams}.example`): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw!.url}${API}/dynamic-events/stream${query}`, { agent: false, localAddress: from, headers }, (res) => {
      const close = () => req.destroy();
      if (res.statusCode === 200) return resolve({ status: 200, headers: res.headers, close });
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), close }));
    });
    req.on('error', reject).end();
  });
}
const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

describe('open streams per client address', () => {
  it('beyond the cap: 429 with Retry-After, no registry stream; another address still streams; a closed stream frees its place', async () => {
    await start({ maxStreams: 10, maxStreamsPerToken: 10, maxStreamsPerClient: 3 });
    const first = await Promise.all([open(), open(), open()]);
    expect(first.map((s) => s.status)).toEqual([200, 200, 200]);
    const before = watchCalls;
    const refused = await open();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toEqual(refusal('this client address has 3 open event streams, the most it may: close one first', { field: false }));
    expect(watchCalls).toBe(before);
    expect((await open('127.0.0.2')).status).toBe(200);
    first[0]!.close();
    await pollUntil('the closed stream gave its place back', async () => (await open().then((s) => (s.close(), s.status))) === 200, { timeoutMs: 5000, intervalMs: 50 });
  });
});

describe('open streams per token', () => {
  it('beyond the cap: 429 naming the token; another token from the same address still streams', async () => {
    await start({ maxStreams: 10, maxStreamsPerToken: 2, maxStreamsPerClient: 10 }, true);
    const a = tokens.add('vendor-a');
    const b = tokens.add('vendor-b');
    expect((await Promise.all([open(undefined, bearer(a)), open(undefined, bearer(a))])).map((s) => s.status)).toEqual([200, 200]);
    const refused = await open(undefined, bearer(a));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toEqual(refusal("token 'vendor-a' has 2 open event streams, the most it may: close one first", { field: false }));
    expect((await open(undefined, bearer(b))).status).toBe(200);
  });
});

describe('open streams in total', () => {
  it('beyond the total: 503 with Retry-After from any address; the admin credential counts for its address and the total', async () => {
    await start({ maxStreams: 3, maxStreamsPerToken: 10, maxStreamsPerClient: 2 });
    expect((await open('127.0.0.1', bearer(ADMIN))).status).toBe(200);
    expect((await open('127.0.0.1', bearer(ADMIN))).status).toBe(200);
    expect((await open('127.0.0.1', bearer(ADMIN))).status).toBe(429);
    expect((await open('127.0.0.2')).status).toBe(200);
    const refused = await open('127.0.0.3');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toEqual({ error: 'the gateway has 3 open event streams, the most it serves: retry later' });
  });

  it('a stream refused by the registry (a bad cursor) gives its place back', async () => {
    await start({ maxStreams: 1, maxStreamsPerToken: 1, maxStreamsPerClient: 1 });
    gw!.registry.failWith = invalidArgument('after_cursor', 'cursor', 'after_cursor is not a cursor of this registry');
    const bad = await open();
    expect(bad.status).toBe(400);
    gw!.registry.failWith = undefined;
    expect((await open()).status).toBe(200);
  });
});

describe('the address a stream counts under', () => {
  it('IPv4 as it is (mapped too), IPv6 by its /64 however it is written', () => {
    expect(clientAddressOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddressOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientAddressOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddressOf('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressOf(undefined)).toBe('unknown');
  });
});
