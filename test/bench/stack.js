// Starts the stack the way `npm start` does (node <root>/deploy/local/dist/start.js) on free ports, and
// the echo baseline; both stop cleanly, and the stack's log goes to a file so load does not flood.
import { fork, spawn } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackServices } from './processes.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ports handed out by this process: the kernel may return a just-released port on the next bind(0). */
const handedOut = new Set();

/** A port nobody listens on right now and not handed out before by this process (the launcher needs six of them). */
export async function freePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise((resolve, reject) => {
      const server = createServer().once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const bound = server.address().port;
        server.close(() => resolve(bound));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no fresh free port on 127.0.0.1 after 50 attempts');
}

/** Resolves with the exit of `child`, or false after `ms`. */
function exited(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return Promise.race([new Promise((resolve) => child.once('exit', () => resolve(true))), sleep(ms).then(() => false)]);
}

/** The launcher's metrics port variable of each service role (deploy/local/config.ts). */
const METRICS_PORT_VARIABLES = { gateway: 'GATEWAY_METRICS_PORT', registry: 'REGISTRY_METRICS_PORT', media: 'MEDIA_METRICS_PORT', delivery: 'DELIVERY_METRICS_PORT' };

/** Fails early with a clear message when `root` is not a built checkout. */
export function checkRoot(root) {
  for (const file of ['deploy/local/dist/start.js', 'ingest-gateway/dist/main.js', 'registry-service/dist/main.js', 'media-service/dist/main.js']) {
    if (!existsSync(join(root, file))) throw new Error(`${join(root, file)} is missing: is ${root} a built checkout (npm run build)?`);
  }
}

/**
 * Starts `<root>/deploy/local/dist/start.js` with its own DATA_DIR and ports; resolves once /readyz says
 * ready, with the launcher's pid, the three services' pids, the POST URL and stop().
 */
export async function startStack(root, env, name) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stack-'));
  chmodSync(dataDir, 0o755); // embedded Postgres runs as another user when we are root
  const roles = Object.keys(METRICS_PORT_VARIABLES);
  const [port, registry, media, ...free] = await Promise.all(Array.from({ length: 3 + roles.length }, freePort));
  // Each role's metrics port, handed over in its launcher variable.
  const metrics = Object.fromEntries(roles.map((role, i) => [role, free[i]]));
  const logFile = join(dataDir, 'stack.log');
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [join(root, 'deploy', 'local', 'dist', 'start.js')], {
    cwd: root,
    env: {
      ...process.env, ...env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: dataDir, PORT: String(port),
      REGISTRY_GRPC_PORT: String(registry), MEDIA_GRPC_PORT: String(media),
      ...Object.fromEntries(Object.entries(METRICS_PORT_VARIABLES).map(([role, variable]) => [variable, String(metrics[role])])),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  let stopped;
  /** Stops the stack once; shows the first lines it logged (warnings and errors, LOG_LEVEL=warn). */
  const stop = () => (stopped ??= (async () => {
    await stopLauncher(child);
    await new Promise((resolve) => log.end(resolve));
    const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    if (lines.length > 0) console.error(`[${name} stack] ${lines.length} log lines; the first ones:\n${lines.slice(0, 20).join('\n')}`);
    rmSync(dataDir, { recursive: true, force: true });
  })());
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (!(await fetch(`${base}/readyz`).then((res) => res.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the ${name} stack did not become ready (root ${root}); its log is above`);
    }
    await sleep(200);
  }
  const services = stackServices(child.pid);
  const metricsUrls = Object.fromEntries(Object.keys(services).map((role) => [role, `http://127.0.0.1:${metrics[role]}/metrics`]));
  return { pid: child.pid, services, base, url: `${base}/api/platform/dh/dynamic-events`, registryAddr: `127.0.0.1:${registry}`, metricsUrls, logFile, stop };
}

/** SIGTERM to the launcher (it drains the gateway, then the backends); SIGKILL everything after 20 s. */
async function stopLauncher(child) {
  const services = Object.values(stackServices(child.pid));
  child.kill('SIGTERM');
  if (await exited(child, 20_000)) return;
  for (const pid of services) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  child.kill('SIGKILL');
  await exited(child, 5_000);
}

/** The node:http JSON echo (baseline-server.js) on a free port. */
export async function startEcho() {
  const port = await freePort();
  const child = fork(join(here, 'baseline-server.js'), [String(port)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the echo server exited with ${code}`)));
  });
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}/`,
    /** The echo's GC figures ({echo: {major, pauseMs}}), asked over IPC; undefined if it does not answer. */
    gc: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => done(undefined), 2000);
        const onMessage = (message) => message?.gc && done({ echo: { ...message.gc } });
        const done = (value) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(value);
        };
        child.on('message', onMessage);
        child.send('gc');
      }),
    async stop() {
      child.kill('SIGTERM');
      if (!(await exited(child, 5_000))) child.kill('SIGKILL');
    },
  };
}
