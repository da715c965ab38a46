/**
 * The built entry point (dist/main.js, produced by `npx tsc -b`, which `npm test` runs first):
 * starts with no configuration, logs its URL, and on SIGTERM finishes in-flight requests and exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcServer, type AsyncServiceImpl, type GrpcServer } from '@dynamic-events/proto/runtime';
import { registry, timestampFromMicros } from '@dynamic-events/proto';
import { TEST_INTERNAL_TOKEN } from '../../test/support/servers.js';
import { unimplementedReads, validBody, withLane } from './helpers.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Started {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  url: string;
  exited: Promise<number | null>;
}

/** Spawns main.js with only the given variables (plus PATH) and waits for its "listening" line. */
/** Every gateway started here, killed after the file whatever its tests did (a failed one leaves its child). */
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function start(env: Record<string, string>): Promise<Started> {
  // METRICS_PORT 0: the default port may be held by a running stack or by a second test run.
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffered += data.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === 'ingest-gateway listening') resolve(String(line.url));
      }
    });
    void exited.then((code) => reject(new Error(`main.js exited with ${code}: ${JSON.stringify(lines)}`)));
  });
  return { child, lines, url, exited };
}

/** A TokenService of an instance that requires no token (no token was ever created). */
function openInstanceTokens(onSync: () => void): AsyncServiceImpl<registry.TokenServiceServer> {
  const unused = () => Promise.reject(new Error('not used by this test'));
  return {
    createToken: unused,
    listTokens: unused,
    getToken: unused,
    updateToken: unused,
    revokeToken: unused,
    getAuthSettings: unused,
    updateAuthSettings: unused,
    async syncTokens() {
      onSync();
      return { version: '1', changed: true, settings: { requireToken: false }, tokens: [] };
    },
  };
}

/** A registry whose RecordEvents waits until the test releases it (the request is in flight during shutdown). */
function heldRegistry(onHeld: (release: () => void) => void): AsyncServiceImpl<registry.RegistryServiceServer> {
  return withLane({
    ...unimplementedReads(),
    async recordEvents(request) {
      await new Promise<void>((resolve) => onHeld(resolve));
      const source = request.events[0]!.source!;
      const event = {
        id: '00000000-0000-4000-8000-000000000001',
        domain: source.objectDomain,
        eventType: request.events[0]!.eventType!.eventType,
        rels: [`/objects/${source.objectDomain}.${source.objectId}`],
        images: [],
        videoClips: [],
        additionalProperties: [],
        createdAt: timestampFromMicros(1_000_000n),
        updatedAt: timestampFromMicros(1_000_000n),
        deviceName: source.deviceName,
        objectId: source.objectId,
        tokenId: '',
        occurredAt: undefined,
      };
      return { results: [{ recorded: { event, outcome: undefined } }] };
    },
    recordEvent: () => Promise.reject(new Error('unused')),
    getEvent: () => Promise.reject(new Error('unused')),
    getDevice: () => Promise.reject(new Error('unused')),
    getObject: () => Promise.reject(new Error('unused')),
    getEventType: () => Promise.reject(new Error('unused')),
  });
}

describe('dist/main.js', () => {
  it('exists (build with `npx tsc -b` first; `npm test` does)', () => {
    expect(existsSync(MAIN)).toBe(true);
  });

  let registryServer: GrpcServer;
  let registryPort = 0;
  let release: () => void = () => {};
  let held = false;
  let synced = false;

  beforeAll(async () => {
    registryServer = createGrpcServer({ logger: pino({ level: 'silent' }) });
    registryServer.addService<registry.RegistryServiceServer>(
      registry.RegistryServiceService,
      // Held until the test has sent SIGTERM: the request is in flight during shutdown.
      heldRegistry((resolve) => {
        release = resolve;
        held = true;
      }),
    );
    // An open instance: no token required (the gateway answers 503 until it knows that).
    registryServer.addService<registry.TokenServiceServer>(registry.TokenServiceService, openInstanceTokens(() => (synced = true)));
    registryPort = await registryServer.listen('127.0.0.1:0');
    registryServer.setServing(true);
  });

  afterAll(() => registryServer.shutdown(500));

  it('starts with no configuration but REGISTRY_INTERNAL_TOKEN and logs its URL', async () => {
    // Ports 0 only (METRICS_PORT in start) so the test never collides with a running gateway; everything else is default.
    const gateway = await start({ PORT: '0' });
    expect(gateway.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const listening = gateway.lines.find((l) => l.msg === 'ingest-gateway listening')!;
    expect(listening).toMatchObject({ registry: '127.0.0.1:50051', media: '127.0.0.1:50052', auth: 'tokens from the registry' });
    const port = new URL(gateway.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  });

  it('exits 1 naming the bad variable', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: 'eighty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(out).toContain('PORT must be an integer');
  });

  it('on SIGTERM finishes the in-flight request, then exits 0', async () => {
    const gateway = await start({ HOST: '127.0.0.1', PORT: '0', REGISTRY_ADDR: `127.0.0.1:${registryPort}`, LOG_LEVEL: 'info' });
    await expect.poll(() => synced, { timeout: 20_000 }).toBe(true);
    // The answer reached the gateway's copy of the tokens once an empty body is refused as invalid
    // (400), rather than with "tokens are not loaded yet" (503): authentication runs before the body.
    const empty = () => fetch(`${gateway.url}/api/platform/dh/dynamic-events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    await expect.poll(async () => (await empty()).status, { timeout: 20_000 }).toBe(400);
    const inFlight = fetch(`${gateway.url}/api/platform/dh/dynamic-events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(validBody()),
    });
    // Wait until the registry holds the call, then ask the gateway to stop.
    await expect.poll(() => held, { timeout: 2000 }).toBe(true);
    gateway.child.kill('SIGTERM');
    await expect.poll(() => gateway.lines.some((l) => l.msg === 'shutting down'), { timeout: 2000 }).toBe(true);
    // New connections are refused while the in-flight request is still held.
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe('00000000-0000-4000-8000-000000000001');
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.some((l) => l.msg === 'shutdown complete')).toBe(true);
    // The answered keep-alive connection was closed at once: the keep-alive timeout (65 s) is past the
    // shutdown timeout (8 s), so a connection left open would have been cut by the timeout, which logs.
    expect(gateway.lines.some((l) => l.msg === 'http shutdown timed out, closing remaining connections')).toBe(false);
  });
});
