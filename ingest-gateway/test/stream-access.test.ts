/**
 * An open SSE stream lasts only as long as its access: it ends, with an `unauthorized` frame saying
 * why, when its token is revoked (here or at another replica: the real token sync over the fake
 * TokenService), when the token expires, when the token's domains are narrowed below what the
 * stream reads, or when an open instance starts requiring tokens. Streams of other tokens, and
 * streams the new domains still allow, go on.
 */
import { request as httpRequest } from 'node:http';
import { createLogger } from '@dynamic-events/proto/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import type { WatchMessage } from '../src/model.js';
import { createTokenSync } from '../src/tokens/token-sync.js';
import { API, CREATED_AT, startGateway, type FakeRegistry, type TestGateway } from './helpers.js';
import { fakeTokens, type FakeTokens } from './fake-tokens.js';

const ADMIN = 'admin-token-of-at-least-32-characters!';
/** How long a test waits for what must happen at once: generous, for a loaded machine. */
const DEADLINE_MS = 10_000;

interface OpenStream {
  status: number;
  body(): string;
  /** Resolves with the time the response ended (Date.now()). */
  ended: Promise<number>;
  close(): void;
}

/** Opens the stream and answers once its headers came. */
function openStream(gw: TestGateway, headers: Record<string, string>, query = ''): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}${API}/dynamic-events/stream${query}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      const ended = new Promise<number>((done) => res.on('end', () => done(Date.now())));
      resolve({ status: res.statusCode ?? 0, body: () => body, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A registry watch the test feeds: a keep-alive first, then what `push` sends. */
function feedableWatch(registry: FakeRegistry): (message: WatchMessage) => void {
  const queue: WatchMessage[] = [];
  let wake = () => {};
  registry.watch = async function* (_query, call) {
    yield { cursor: 'c0', changes: [] };
    while (!call.signal.aborted) {
      const next = queue.shift();
      if (next) yield next;
      else await new Promise<void>((resolve) => ((wake = resolve), call.signal.addEventListener('abort', () => resolve(), { once: true })));
    }
  };
  return (message) => {
    queue.push(message);
    wake();
  };
}

async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${DEADLINE_MS} ms`)), DEADLINE_MS)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

/** Creates a token through the gateway's admin API; answers its secret. */
async function createToken(gateway: TestGateway): Promise<string> {
  const init = { method: 'POST', headers: { ...bearer(ADMIN), 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'vendor' }) };
  const response = await fetch(`${gateway.url}${API}/settings/dynamic-events/tokens`, init);
  expect(response.status).toBe(201);
  return String(((await response.json()) as { token: string }).token);
}

const unauthorized = (reason: string) => `event: unauthorized\ndata: {"error":"${reason}"}\n\n`;

/** Gateways whose token copy polls a fake TokenService, and the streams opened on them; all closed after each test. */
function useStreamGateways() {
  const h = {
    gw: undefined as TestGateway | undefined,
    tokens: undefined as unknown as FakeTokens,
    streams: [] as OpenStream[],
    stopSync: () => {},
    /** A gateway whose token copy polls the fake TokenService every `intervalMs` (replicas: each second). */
    async start(requireToken = true, intervalMs = 50): Promise<TestGateway> {
      h.tokens = fakeTokens();
      h.tokens.requireToken = requireToken;
      const source = createTokenSync({ client: h.tokens.client, intervalMs, logger: createLogger('test', 'silent'), metrics: createMetrics() });
      h.stopSync = () => source.stop();
      await source.start();
      h.gw = await startGateway({ adminToken: ADMIN, tokens: { client: h.tokens.client, source } });
      return h.gw;
    },
    async open(headers: Record<string, string>, query = ''): Promise<OpenStream> {
      const stream = await openStream(h.gw!, headers, query);
      h.streams.push(stream);
      expect(stream.status).toBe(200);
      return stream;
    },
  };
  afterEach(async () => {
    for (const stream of h.streams.splice(0)) stream.close();
    h.stopSync();
    await h.gw?.close();
    h.gw = undefined;
  });
  return h;
}

describe('open streams end with their access', () => {
  const h = useStreamGateways();
  const { start, open } = h;

  it('revoked at another replica: its stream ends with "token revoked"; a stream of another token goes on', async () => {
    const gateway = await start();
    const push = feedableWatch(gateway.registry);
    const [revoked, kept] = [h.tokens.add('revoked'), h.tokens.add('kept')];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const doomed = await open(bearer(revoked));
    const other = await open(bearer(kept));
    h.tokens.revoke(h.tokens.records[0]!.id);
    await within('the revoked stream ends', doomed.ended);
    expect(doomed.body().endsWith(unauthorized('token revoked'))).toBe(true);
    const device = { deviceName: 'cam', kind: 'generic', createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: null, lastSeenAt: null };
    push({ cursor: 'c1', changes: [{ cursor: 'c1', kind: 'device.created', device }] });
    await within('the other stream gets the next change', until(() => other.body().includes('id: c1')));
    expect(other.body()).not.toContain('unauthorized');
  });

  it("revoked through this gateway's admin API: its stream ends without waiting for a sync", async () => {
    // An interval no test reaches: only the revocation itself can end the stream.
    const gateway = await start(true, 3_600_000);
    feedableWatch(gateway.registry);
    const secret = await createToken(gateway);
    const stream = await open(bearer(secret));
    const response = await fetch(`${gateway.url}${API}/settings/dynamic-events/tokens/${h.tokens.records[0]!.id}`, { method: 'DELETE', headers: bearer(ADMIN) });
    expect(response.status).toBe(200);
    await within('the stream ends', stream.ended);
    expect(stream.body().endsWith(unauthorized('token revoked'))).toBe(true);
  });

  it('expired: its stream ends at expires_at with "token expired", not before', async () => {
    const gateway = await start();
    feedableWatch(gateway.registry);
    const expiresAtMs = Date.now() + 1500;
    const secret = h.tokens.add('expiring', { expiresAtMs });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stream = await open(bearer(secret));
    const endedAt = await within('the stream ends', stream.ended);
    expect(endedAt).toBeGreaterThanOrEqual(expiresAtMs);
    expect(stream.body().endsWith(unauthorized('token expired'))).toBe(true);
  });

  it('opened while the instance was open: ends with "token required" once it requires one', async () => {
    const gateway = await start(false);
    feedableWatch(gateway.registry);
    const stream = await open({});
    h.tokens.add('first');
    await h.tokens.client.setRequireToken(true, { requestId: 'test' });
    await within('the anonymous stream ends', stream.ended);
    expect(stream.body().endsWith(unauthorized('token required'))).toBe(true);
  });
});

describe("open streams end when their token's domains are narrowed below them", () => {
  const h = useStreamGateways();
  const { start, open } = h;

  it('domains narrowed at another replica: a stream outside the new domains ends with "token domains narrowed"; one they allow goes on, and widening ends nothing', async () => {
    const gateway = await start();
    const push = feedableWatch(gateway.registry);
    const secret = h.tokens.add('vendor', { policy: { domains: ['acme.*'] } });
    const id = h.tokens.records[0]!.id;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const across = await open(bearer(secret));
    const camera = await open(bearer(secret), '?domain=acme.camera.video');
    await h.tokens.client.update(id, { policy: { domains: ['acme.camera.*'] } }, { requestId: 'test' });
    await within('the stream across acme.* ends', across.ended);
    expect(across.body().endsWith(unauthorized('token domains narrowed'))).toBe(true);
    await h.tokens.client.update(id, { policy: { domains: ['acme.camera.*', 'globex.*'] } }, { requestId: 'test' });
    const object = { id: 'acme.camera.video.ch', objectDomain: 'acme.camera.video', objectId: 'ch', objectName: 'n', objectType: 't', deviceName: 'cam', createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: null, lastSeenAt: null };
    push({ cursor: 'c1', changes: [{ cursor: 'c1', kind: 'object.created', object }] });
    await within('the stream of acme.camera.video gets the next change', until(() => camera.body().includes('id: c1')));
    expect(camera.body()).not.toContain('unauthorized');
  });

  it("unrestricted, then restricted through this gateway's admin API: its stream of every domain ends at once", async () => {
    const gateway = await start(true, 3_600_000);
    feedableWatch(gateway.registry);
    const secret = await createToken(gateway);
    const stream = await open(bearer(secret));
    const init = { method: 'PATCH', headers: { ...bearer(ADMIN), 'Content-Type': 'application/json' }, body: JSON.stringify({ policy: { domains: ['acme.*'] } }) };
    const response = await fetch(`${gateway.url}${API}/settings/dynamic-events/tokens/${h.tokens.records[0]!.id}`, init);
    expect(response.status).toBe(200);
    await within('the stream ends', stream.ended);
    expect(stream.body().endsWith(unauthorized('token domains narrowed'))).toBe(true);
  });
});

describe("the admin credential's stream", () => {
  const h = useStreamGateways();
  const { open } = h;

  it("the admin credential's stream is no token's: requiring tokens and revoking them leave it open; the gateway draining ends it", async () => {
    const gateway = await h.start(false);
    const push = feedableWatch(gateway.registry);
    const anonymous = await open({});
    const admin = await open(bearer(ADMIN));
    h.tokens.add('first');
    await h.tokens.client.setRequireToken(true, { requestId: 'test' });
    await within('the anonymous stream ends', anonymous.ended);
    const secret = await createToken(gateway);
    const revoked = await open(bearer(secret));
    h.tokens.revoke(h.tokens.records[1]!.id);
    await within('the revoked stream ends', revoked.ended);
    const device = { deviceName: 'cam', kind: 'generic', createdAt: CREATED_AT, updatedAt: CREATED_AT, createdByTokenId: null, lastSeenAt: null };
    push({ cursor: 'c1', changes: [{ cursor: 'c1', kind: 'device.created', device }] });
    await within('the admin stream gets the next change', until(() => admin.body().includes('id: c1')));
    expect(admin.body()).not.toContain('unauthorized');
    gateway.draining.abort();
    await within('the admin stream ends with the gateway', admin.ended);
    expect(admin.body()).not.toContain('unauthorized');
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

