/**
 * `npm start` checks every port it will bind before it starts anything. A port held by another
 * process (a second stack, say) fails the start at once, naming the variable to set; the launcher
 * never takes whatever answers on that port for its own gateway.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLauncher } from '../support/launcher-run.js';
import { freePort, tempDir } from '../support/servers.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

function listening<S extends Server>(server: S): Promise<number> {
  cleanups.push(() => server.close());
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function dataDir(): string {
  const dir = tempDir('launcher-ports');
  cleanups.push(dir.remove);
  return dir.path;
}

/** What must not have happened when the launcher refused: nothing started, no "started" line. */
function expectNothingStarted(output: string, dir: string): void {
  expect(output).not.toContain('all services started');
  expect(output).not.toContain('embedded Postgres');
  expect(output).not.toContain('listening');
  expect(existsSync(join(dir, 'postgres'))).toBe(false);
  expect(existsSync(join(dir, 'stack.json'))).toBe(false);
}

describe('launcher ports', () => {
  it('refuses a PORT another server holds, naming PORT, and sends that server nothing', async () => {
    const requests: string[] = [];
    // Another stack's gateway would answer /healthz and /readyz with 200.
    const other = createHttpServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('{"status":"ok"}');
    });
    const port = await listening(other);
    const dir = dataDir();
    const { code, output } = await runLauncher({ DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(port) });
    expect(code).toBe(1);
    expect(output).toContain(`PORT: port ${port} on 127.0.0.1 is in use by another process (set PORT to a free port)`);
    expectNothingStarted(output, dir);
    expect(requests).toEqual([]);
  });

  it('refuses set gRPC and metrics ports another process holds, naming each variable, and two variables on one port', async () => {
    const [registryGrpc, mediaGrpc, gatewayMetrics] = [await listening(createServer()), await listening(createServer()), await listening(createServer())];
    const shared = await freePort();
    const dir = dataDir();
    const { code, output } = await runLauncher({
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      REGISTRY_GRPC_PORT: String(registryGrpc),
      MEDIA_GRPC_PORT: String(mediaGrpc),
      GATEWAY_METRICS_PORT: String(gatewayMetrics),
      REGISTRY_METRICS_PORT: String(shared),
      MEDIA_METRICS_PORT: String(shared),
    });
    expect(code).toBe(1);
    expect(output).toContain(`REGISTRY_GRPC_PORT: port ${registryGrpc} on 127.0.0.1 is in use by another process (set REGISTRY_GRPC_PORT to a free port)`);
    expect(output).toContain(`MEDIA_GRPC_PORT: port ${mediaGrpc} on 127.0.0.1 is in use`);
    expect(output).toContain(`GATEWAY_METRICS_PORT: port ${gatewayMetrics} on 127.0.0.1 is in use`);
    expect(output).toContain(`MEDIA_METRICS_PORT and REGISTRY_METRICS_PORT are both ${shared}: give each its own port`);
    expectNothingStarted(output, dir);
  });

  it('refuses a DATA_DIR a running stack holds at once, with the port check, suggesting PORT and DATA_DIR together', async () => {
    // A running launcher, as its stack.json shows it: its pid and that process's start time.
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    cleanups.push(() => other.kill());
    const started = readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    const dir = dataDir();
    const stackFile = { pid: other.pid, started, url: 'http://localhost:8080/api/platform/dh/dynamic-events', gateway: 'http://127.0.0.1:8080', registry: '127.0.0.1:50051', media: '127.0.0.1:50052', metrics: {}, internalToken: 'x' };
    writeFileSync(join(dir, 'stack.json'), JSON.stringify(stackFile));
    const { code, output } = await runLauncher({ DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(await freePort()) });
    expect(code).toBe(1);
    expect(output).toContain(`DATA_DIR ${dir} is in use by another stack (pid ${other.pid}, http://127.0.0.1:8080): give a second stack its own PORT and DATA_DIR`);
    // Refused with the checks, before anything starts (the embedded Postgres' own claim of the
    // directory comes only after it started, and waits for the other stack to go away).
    expect(output).not.toContain('embedded Postgres');
    expect(output).not.toContain('listening');
    expect(existsSync(join(dir, 'postgres'))).toBe(false);
  });

  it('a stack.json left by a launcher that is gone, or whose pid another process has now, does not hold the DATA_DIR', async () => {
    const held = await listening(createServer());
    for (const left of [{ pid: 4_194_000, started: '1' }, { pid: process.pid, started: '1' }]) {
      const dir = dataDir();
      writeFileSync(join(dir, 'stack.json'), JSON.stringify({ ...left, gateway: 'http://127.0.0.1:1' }));
      // A held PORT stops the launcher right after the checks: only the port is named.
      const { code, output } = await runLauncher({ DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(held) });
      expect(code).toBe(1);
      expect(output).toContain(`PORT: port ${held} on 127.0.0.1 is in use`);
      expect(output).not.toContain('is in use by another stack');
    }
  });
});
