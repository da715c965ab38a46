import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHealthChecker } from '@dynamic-events/proto/runtime';
import { MEDIA_SERVICE_NAME } from '@dynamic-events/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { createFilesystemStorage } from '../src/storage/filesystem.js';
import { samples } from '../../test/support/images.js';
import { freePort, tempDir } from '../../test/support/servers.js';
import { startMedia } from './helpers.js';

const MAIN = new URL('../dist/main.js', import.meta.url).pathname;
const dir = tempDir('media-main');
afterAll(() => dir.remove());

interface Child {
  process: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

/** Runs the built entry point as `npm start` would, in its own working directory. */
function run(env: Record<string, string>): Child {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npx tsc -b\` first`);
  // METRICS_PORT 0: the default port may be held by a running stack or by a second test run.
  const child = spawn(process.execPath, [MAIN], { cwd: dir.path, env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  child.stdout.on('data', (data: Buffer) => lines.push(...data.toString().split('\n').filter(Boolean)));
  child.stderr.on('data', (data: Buffer) => lines.push(...data.toString().split('\n').filter(Boolean)));
  return { process: child, lines, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

/** Waits for a log line (a process starting on a busy machine may take many seconds: up to 20 s). */
async function waitForLine(child: Child, pattern: RegExp): Promise<Record<string, unknown>> {
  for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 25))) {
    const line = child.lines.find((l) => pattern.test(l));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    if (Date.now() > deadline || child.process.exitCode !== null) throw new Error(`no log line matching ${pattern} within 20 s: ${child.lines.join('\n')}`);
  }
}

describe('media-service main', { timeout: 60_000 }, () => {
  it('starts with no configuration on filesystem storage, logs its port, serves, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const child = run({ MEDIA_GRPC_PORT: String(port), GRPC_HOST: '127.0.0.1' });
    const listening = await waitForLine(child, /listening/);
    expect(listening).toMatchObject({ level: 'info', service: 'media-service', port, storage: `filesystem ${dir.path}/.data/media` });
    await waitForLine(child, /storage usable/);
    const health = createHealthChecker(`127.0.0.1:${port}`);
    // Asked until SERVING (20 s at most): a first check may meet a channel still connecting.
    let serving = false;
    for (const deadline = Date.now() + 20_000; !serving && Date.now() < deadline; ) serving = await health.isServing(MEDIA_SERVICE_NAME, 2000);
    expect(serving).toBe(true);
    health.close();

    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.lines.some((l) => l.includes('shutdown complete'))).toBe(true);
  });

  it('keeps images across restarts on the same DATA_DIR', async () => {
    const dataDir = `${dir.path}/persist`;
    const port = await freePort();
    const first = run({ MEDIA_GRPC_PORT: String(port), GRPC_HOST: '127.0.0.1', DATA_DIR: dataDir });
    await waitForLine(first, /listening/);
    // Store through the running process, read back through a second server on the same directory.
    const { media } = await import('@dynamic-events/proto');
    const { createGrpcClient, callUnary } = await import('@dynamic-events/proto/runtime');
    const client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`);
    // Connected first, so the call's own deadline never covers connecting on a busy machine.
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 20_000, (err) => (err ? reject(err) : resolve())));
    const stored = await callUnary(client.storeImage.bind(client), { data: samples.webp.bytes }, { deadlineMs: 5000 });
    client.close();
    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const again = await startMedia(createFilesystemStorage({ dir: `${dataDir}/media` }));
    const messages = await again.get(stored.key);
    expect(Buffer.concat(messages.map((m) => m.chunk)).equals(samples.webp.bytes)).toBe(true);
    expect((await again.store(samples.webp.bytes)).created).toBe(false);
    await again.stop();
  });

  it('refuses to start with a bad variable, naming it, and exits 1', async () => {
    const child = run({ MAX_IMAGE_BYTES: 'lots', MEDIA_GRPC_PORT: 'x' });
    expect(await child.exited).toBe(1);
    const fatal = await waitForLine(child, /"fatal"/);
    expect(JSON.stringify(fatal)).toMatch(/MAX_IMAGE_BYTES.*MEDIA_GRPC_PORT|MEDIA_GRPC_PORT.*MAX_IMAGE_BYTES/);
  });
});
