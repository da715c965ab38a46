/**
 * Two `npm start` stacks on one machine with only PORT changed: the second finds the default
 * internal ports (gRPC 50051/50052, metrics 9464–9466) taken, picks free ones and says where they
 * are, instead of crashing with EADDRINUSE. Ports set explicitly stay strict. The registry CLI
 * finds the second stack's registry through its DATA_DIR, not the default port the first holds.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { createTestDatabase, postgresAvailable, tempDir } from '../support/servers.js';
import { postJson, REPO_ROOT, startedLine, startStack, stopAllStacks, type Stack } from '../support/stack.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();
const DEFAULTS = [50051, 50052, 9464, 9465, 9466];

/** Holds `port` on loopback, as a first stack would (undefined when something already holds it: just as good). */
function occupy(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe.skipIf(!up)('a second stack beside the first', () => {
  const blockers: Array<Server | undefined> = [];
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dir: ReturnType<typeof tempDir>;
  let stack: Stack;

  beforeAll(async () => {
    for (const port of DEFAULTS) blockers.push(await occupy(port));
    db = await createTestDatabase();
    dir = tempDir('e2e-second-stack');
    stack = await startStack({ dataDir: dir.path, env: { DATABASE_URL: db.url }, defaultInternalPorts: true });
  });

  afterAll(async () => {
    const result = await stack?.stop('SIGTERM');
    for (const blocker of blockers) blocker?.close();
    await db?.drop();
    // A stopped stack leaves no addresses behind for the CLI to call.
    const stackFileLeft = dir && existsSync(join(dir.path, 'stack.json'));
    dir?.remove();
    expect(result?.code).toBe(0);
    expect(stackFileLeft).toBe(false);
  });

  it('starts on free internal ports, says where each one is, and serves', async () => {
    const { metrics, grpc } = startedLine(stack.output());
    const used = [grpc.registry, grpc.media, metrics.gateway, metrics.registry, metrics.media].map((address) => Number(/:(\d+)(\/|$)/.exec(address)![1]));
    for (const port of used) expect(DEFAULTS).not.toContain(port);
    for (const name of ['REGISTRY_GRPC_PORT', 'MEDIA_GRPC_PORT', 'GATEWAY_METRICS_PORT', 'REGISTRY_METRICS_PORT', 'MEDIA_METRICS_PORT']) {
      expect(stack.output()).toContain(`"variable":"${name}"`);
    }
    // Status and body together, so a refusal says which part was not ready.
    const answer = await postJson(`${stack.api}/dynamic-events`, exampleEvent());
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
    for (const url of Object.values(metrics)) expect((await fetch(url)).status).toBe(200);
  });

  it('writes where it listens to DATA_DIR/stack.json, where the registry CLI finds its registry', async () => {
    const { grpc, metrics } = startedLine(stack.output());
    const file = join(dir.path, 'stack.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      pid: stack.process.pid,
      // When that process started (clock ticks since boot): a recycled pid is not this stack.
      started: expect.stringMatching(/^\d+$/),
      url: `${stack.api}/dynamic-events`,
      gateway: stack.baseUrl,
      registry: grpc.registry,
      media: grpc.media,
      metrics,
      // Generated for this stack (REGISTRY_INTERNAL_TOKEN unset): the CLI presents it to TokenService.
      internalToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // It holds a credential: readable by its owner only, and never in the log.
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(stack.output()).not.toContain(JSON.parse(readFileSync(file, 'utf8')).internalToken);
    // As an operator runs it beside `npm start`: no address given, only the stack's DATA_DIR.
    const cli = join(REPO_ROOT, 'registry-service', 'dist', 'cli', 'main.js');
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dir.path };
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, 'auth', 'show'], { cwd: REPO_ROOT, env });
    expect(JSON.parse(stdout)).toEqual({ require_token: false });
    expect(stderr).toBe(`using the registry at ${grpc.registry} (the stack npm start runs from ${file}, pid ${stack.process.pid})\n`);
  });

  it('keeps an explicitly set port strict: taken, the stack fails to start, naming it', async () => {
    const taken = tempDir('e2e-second-stack-strict');
    // A port this test holds itself: a default port held by another test run may be let go meanwhile.
    const holder = (await occupy(0))!;
    const port = (holder.address() as AddressInfo).port;
    try {
      const starting = startStack({ dataDir: taken.path, env: { DATABASE_URL: db.url, MEDIA_METRICS_PORT: String(port) }, defaultInternalPorts: true });
      await expect(starting).rejects.toThrow(new RegExp(`MEDIA_METRICS_PORT: port ${port} on 127\\.0\\.0\\.1 is in use by another process`));
    } finally {
      holder.close();
      taken.remove();
    }
  });
});
