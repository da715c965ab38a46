/**
 * Tokens end to end over HTTP, on the machine's PostgreSQL (a fresh database), with the default
 * TOKEN_SYNC_INTERVAL_MS: gateway A (the stack's own) and gateway B (`ingest-gateway/dist/main.js`
 * started beside it on the same registry and media) are two replicas. Tokens are managed through A's
 * admin API only: A applies each change before answering; revocation, expiry and the require_token
 * switch reach both within 5 s (measured), open streams included; policies refuse with 403 before
 * anything is stored, records carry their token, and no secret is ever logged.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { useStackOnFreshDatabase, type FreshStack } from '../support/fresh-stack.js';
import { freePort, postgresAvailable } from '../support/servers.js';
import { openSse, type SseStream } from '../support/sse.js';
import { killAllServices, spawnService, waitFor, type ServiceProcess } from '../support/service-process.js';
import { getJson, postJson, startedLine, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);
afterAll(killAllServices);

const up = await postgresAvailable();
const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const PROMISE_MS = 5000;
/** Debug: the most the processes ever log, for the secrets check. */
const LOG_LEVEL = 'debug';

type Answer = { status: number; body?: Record<string, unknown> };
interface Token { id: string; name: string; secret: string; expiresAt?: string }
interface EventJson { id: string; token_id: string | null }

/** Each gateway's API base (`…/api/platform/dh`). */
const gw = { a: '', b: '' };
const both = () => [gw.a, gw.b];
let stack: FreshStack;
let gatewayB: ServiceProcess;
/** Every secret the admin API answered, to look for in the logs. */
const secrets: string[] = [];
/** Tokens the policy tests create; the last test revokes them. */
const policy = {} as Record<'objectsOnly' | 'camerasOnly' | 'twoDevices', Token>;

const bearer = (secret?: string): Record<string, string> => (secret === undefined ? {} : { authorization: `Bearer ${secret}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const postEvent = (api: string, device: string, secret?: string, overrides: Parameters<typeof exampleEvent>[0] = {}) =>
  postJson(`${api}/dynamic-events`, exampleEvent({ device, ...overrides }), bearer(secret));
const read = (api: string, path: string, secret?: string) => getJson(`${api}${path}`, bearer(secret));
const streamsOnBoth = (secret: string) => Promise.all(both().map((api) => openSse(`${api}/dynamic-events/stream`, bearer(secret))));
/** Waits until each stream ended with the `unauthorized` frame for `reason`; answers when it came (performance.now()). */
async function endedFor(streams: SseStream[], reason: string): Promise<number[]> {
  await Promise.all(streams.map((stream) => stream.until((frames) => frames.at(-1)?.event === 'unauthorized', 15_000).then(() => stream.ended)));
  for (const stream of streams) expect(stream.frames.at(-1)?.data).toBe(JSON.stringify({ error: reason }));
  return streams.map((stream) => stream.frames.at(-1)!.at);
}

/** A call to A's admin API (`…/settings/dynamic-events{path}`). */
async function admin(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${gw.a}/settings/dynamic-events${path}`, {
    method,
    headers: { ...bearer(ADMIN_TOKEN), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function createToken(name: string, extra: Record<string, unknown> = {}): Promise<Token> {
  const res = await admin('POST', '/tokens', { name, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const token = { id: String(res.body?.id), name, secret: String(res.body?.token), expiresAt: res.body?.expires_at as string | undefined };
  secrets.push(token.secret);
  return token;
}

/**
 * On both gateways at once: polls `probe` every 50 ms until it answers `status` and says, for each,
 * how many ms that took from `since` (default: now) and the answer. Gives up after 10 s.
 */
function onBoth(probe: (api: string) => Promise<Answer>, status: number, since = performance.now()) {
  return Promise.all(
    both().map(async (api) => {
      for (;;) {
        const answer = await probe(api);
        const ms = Math.round(performance.now() - since);
        if (answer.status === status) return { ms, answer };
        if (ms > 10_000) throw new Error(`${api}: still ${answer.status} ${JSON.stringify(answer.body)} after ${ms} ms`);
        await sleep(50);
      }
    }),
  );
}

/** Gateway B: the gateway alone on the stack's registry and media, as a second replica runs. */
function useGatewayB(ctx: FreshStack): void {
  beforeAll(async () => {
    stack = ctx;
    gw.a = ctx.stack.api;
    // The launcher says where registry and media listen once the gateway answered.
    await waitFor('the launcher\'s "all services started" line', async () => ctx.stack.output().includes('"msg":"all services started"'));
    const { grpc } = startedLine(ctx.stack.output());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A replica shares the registry's internal credential: the one the launcher made for this stack.
    const { internalToken } = JSON.parse(readFileSync(join(ctx.dataDir, 'stack.json'), 'utf8')) as { internalToken: string };
    const env = { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base, REGISTRY_ADDR: grpc.registry, MEDIA_ADDR: grpc.media, REGISTRY_INTERNAL_TOKEN: internalToken };
    gatewayB = spawnService('ingest-gateway', { ...env, METRICS_PORT: String(await freePort()), METRICS_HOST: '127.0.0.1', LOG_LEVEL });
    await waitFor('gateway B ready', async () => (await fetch(`${base}/readyz`)).ok, 30_000, gatewayB);
    gw.b = `${base}/api/platform/dh`;
  });
  afterAll(async () => {
    if (!gatewayB) return;
    gatewayB.kill('SIGTERM');
    expect((await gatewayB.exited).code).toBe(0);
  });
}

function replicaTests(): void {
  it('a token created through A works on A at once, on B within 5 s; revoked, both refuse it and end its streams within 5 s', async () => {
    // Before the first token the instance is open; B has no ADMIN_TOKEN, so no admin API.
    for (const api of both()) expect((await postEvent(api, 'cam-open')).status).toBe(200);
    expect((await read(gw.b, '/settings/dynamic-events/tokens', ADMIN_TOKEN)).status).toBe(404);

    const creating = performance.now();
    const token = await createToken('replicas');
    expect((await read(gw.a, '/dynamic-events?limit=1')).status).toBe(401); // A served the change: in force from its answer on
    expect((await read(gw.a, '/dynamic-events?limit=1', token.secret)).status).toBe(200);
    // The first token closes the instance: a gateway that refuses anonymous reads has the token too.
    const closed = await onBoth((api) => read(api, '/dynamic-events?limit=1'), 401, creating);
    for (const api of both()) expect(await postEvent(api, 'cam-replicas', token.secret)).toMatchObject({ status: 200, body: { token_id: token.id } });
    const streams = await streamsOnBoth(token.secret);

    const revoking = performance.now();
    const revoked = await admin('DELETE', `/tokens/${token.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { id: token.id, revoked_at: expect.any(String) } });
    expect((await postEvent(gw.a, 'cam-replicas', token.secret)).status).toBe(401);
    const refused = await onBoth((api) => postEvent(api, 'cam-replicas', token.secret), 401, revoking);
    for (const at of await endedFor(streams, 'token revoked')) expect(at - revoking).toBeLessThan(PROMISE_MS);
    console.info(`token known: A ${closed[0]!.ms} ms, B ${closed[1]!.ms} ms; revocation: A ${refused[0]!.ms} ms, B ${refused[1]!.ms} ms`);
    for (const { ms } of [...closed, ...refused]) expect(ms).toBeLessThan(PROMISE_MS);
    for (const { answer } of refused) expect(answer.body).toEqual({ error: 'invalid bearer token' });
  });

  it('an expiring token works on both until expires_at, then both answer 401 and end its streams', async () => {
    // 8 s of life: time for both gateways to learn it and use it on a busy machine before it expires.
    const token = await createToken('expiring', { expires_at: new Date(Date.now() + 8000).toISOString() });
    const expiresAt = Date.parse(String(token.expiresAt));
    const known = await onBoth((api) => read(api, '/dynamic-events?limit=1', token.secret), 200);
    const streams = await streamsOnBoth(token.secret);
    expect(Date.now()).toBeLessThan(expiresAt);
    for (const api of both()) expect(await postEvent(api, 'cam-expiring', token.secret)).toMatchObject({ status: 200, body: { token_id: token.id } });
    await endedFor(streams, 'token expired');
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    // Expiry is checked at each request against the gateway's clock (same machine): the first
    // request after expires_at is refused on both, with no sync needed in between.
    const expired = await Promise.all(both().map((api) => postEvent(api, 'cam-expiring', token.secret)));
    console.info(`expiring token known: A ${known[0]!.ms} ms, B ${known[1]!.ms} ms`);
    for (const answer of expired) expect(answer).toMatchObject({ status: 401, body: { error: 'invalid bearer token' } });
  });
}

function policyTests(): void {
  beforeAll(async () => {
    policy.objectsOnly = await createToken('objects-only', { policy: { may_create: ['objects', 'event_types'] } });
    policy.camerasOnly = await createToken('cameras-only', { policy: { domains: ['acme.camera.*'] } });
    policy.twoDevices = await createToken('two-devices', { policy: { max_devices: 2 } });
    await onBoth((api) => read(api, '/dynamic-events?limit=1'), 401); // B knows require_token (TOKEN_SYNC_INTERVAL_MS); then a read each token may make
    for (const token of Object.values(policy)) await onBoth((api) => read(api, '/dynamic-events?domain=acme.camera.video&limit=1', token.secret), 200);
  });

  it('may_create without devices: 403 for a new device, and nothing is stored', async () => {
    const { objectsOnly: token, twoDevices: reader } = policy;
    for (const [i, api] of both().entries()) {
      const refused = await postEvent(api, `cam-refused-${i}`, token.secret, { objectId: `ch-refused-${i}` });
      expect(refused).toMatchObject({ status: 403, body: { error: `token '${token.name}' may not create devices` } });
      expect((await read(api, `/devices/cam-refused-${i}`, reader.secret)).status).toBe(404);
      expect((await read(api, `/objects/acme.camera.video.ch-refused-${i}`, reader.secret)).status).toBe(404);
    }
    expect((await read(gw.a, `/dynamic-events?token_id=${token.id}`, token.secret)).body?.events).toEqual([]);
    // Objects it may create, on a device that exists.
    expect(await postEvent(gw.b, 'cam-replicas', token.secret, { objectId: 'ch-new' })).toMatchObject({ status: 200, body: { token_id: token.id } });
  });

  it('domains: 403 for another domain at either gateway, its own domain passes', async () => {
    const token = policy.camerasOnly;
    for (const api of both()) {
      const refused = await postEvent(api, 'cam-replicas', token.secret, { domain: 'acme.door.lock' });
      expect(refused.status).toBe(403);
      expect(refused.body?.error).toMatch(new RegExp(`^token '${token.name}' may not send events of this source.object_domain`));
    }
    expect(await postEvent(gw.a, 'cam-replicas', token.secret, { domain: 'acme.camera.thermal' })).toMatchObject({ status: 200, body: { token_id: token.id } });
    const listed = (await read(gw.b, `/dynamic-events?domain=acme.camera.thermal&token_id=${token.id}`, token.secret)).body?.events as Array<{ id: string; domain: string }>;
    expect(listed.map((e) => e.domain)).toEqual(['acme.camera.thermal']);
    // It reads within its domains only: an unfiltered list answers them alone; its own event is read.
    expect(new Set(((await read(gw.a, '/dynamic-events', token.secret)).body?.events as Array<{ domain: string }>).map((e) => e.domain.split('.', 2).join('.')))).toEqual(new Set(['acme.camera']));
    expect((await read(gw.a, `/dynamic-events/${listed[0]!.id}`, token.secret)).status).toBe(200);
  });

  it('max_devices 2: of 5 concurrent new devices over both gateways exactly 2 pass; records carry the token', async () => {
    const token = policy.twoDevices;
    const devices = [0, 1, 2, 3, 4].map((i) => `cam-limited-${i}`);
    const answers = await Promise.all(devices.map((device, i) => postEvent(both()[i % 2]!, device, token.secret)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 403, 403, 403]);
    for (const a of answers.filter((a) => a.status === 403)) expect(a.body).toEqual({ error: `token '${token.name}' may not create more than 2 devices`, rule: 'token-max-devices' });
    const passed = answers.flatMap((a, i) => (a.status === 200 ? [{ device: devices[i]!, event: a.body as unknown as EventJson }] : []));
    for (const { device, event } of passed) {
      expect(event.token_id).toBe(token.id);
      expect((await read(gw.b, `/devices/${device}`, token.secret)).body).toMatchObject({ device_name: device, created_by_token_id: token.id });
    }
    for (const device of devices.filter((d) => !passed.some((p) => p.device === d))) expect((await read(gw.a, `/devices/${device}`, token.secret)).status).toBe(404);
    const filtered = (await read(gw.a, `/dynamic-events?token_id=${token.id}`, token.secret)).body?.events as EventJson[];
    expect(filtered.map((e) => e.id).sort()).toEqual(passed.map((p) => p.event.id).sort());
    expect(filtered.every((e) => e.token_id === token.id)).toBe(true);
    const all = (await read(gw.a, '/dynamic-events?limit=100', token.secret)).body?.events as EventJson[];
    expect(new Set(all.map((e) => e.token_id)).size).toBeGreaterThan(2);
  });
}

function closingTests(): void {
  it('revoking the last token leaves both closed; require_token false opens both within 5 s', async () => {
    const tokens = (await admin('GET', '/tokens')).body?.tokens as Array<{ id: string; revoked_at: string | null }>;
    for (const { id } of tokens.filter((t) => t.revoked_at === null)) expect((await admin('DELETE', `/tokens/${id}`)).status).toBe(200);
    // Once both refuse the last token they know it is gone: still nobody gets in without one.
    await onBoth((api) => read(api, '/dynamic-events?limit=1', policy.twoDevices.secret), 401);
    for (const api of both()) expect(await postEvent(api, 'cam-closed')).toMatchObject({ status: 401, body: { error: 'missing bearer token' } });
    expect(await admin('GET', '')).toEqual({ status: 200, body: { require_token: true, access: 'closed' } });

    const opening = performance.now();
    expect(await admin('PATCH', '', { require_token: false })).toEqual({ status: 200, body: { require_token: false, access: 'open' } });
    const opened = await onBoth((api) => postEvent(api, 'cam-opened'), 200, opening);
    console.info(`opened: A ${opened[0]!.ms} ms, B ${opened[1]!.ms} ms`);
    for (const { ms, answer } of opened) {
      expect(ms).toBeLessThan(PROMISE_MS);
      expect(answer.body?.token_id).toBeNull();
    }
  });

  it('no secret appears in any process log', () => {
    const logs = stack.stack.output() + gatewayB.output();
    expect(secrets.length).toBeGreaterThan(0);
    expect(logs).toContain('ingest-gateway listening');
    for (const secret of secrets) expect(logs.includes(secret), 'a token secret is in the logs').toBe(false);
    expect(logs.includes(ADMIN_TOKEN), 'ADMIN_TOKEN is in the logs').toBe(false);
  });
}

describe.skipIf(!up)('tokens end to end, two gateways on one registry', () => {
  useGatewayB(useStackOnFreshDatabase('e2e-tokens', { ADMIN_TOKEN, LOG_LEVEL }));
  describe('propagation to both replicas', replicaTests);
  describe('policies', policyTests);
  describe('closing and opening the instance', closingTests);
});
