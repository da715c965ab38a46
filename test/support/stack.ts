/**
 * Runs the real product for end-to-end tests: `node deploy/local/dist/start.js` (what `npm start` runs
 * after building) with its three services as child processes, on free ports and a temporary
 * DATA_DIR, or on the real Postgres/Redis/S3 when their variables are passed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './servers.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Stacks started by this test file and not stopped yet. */
const running = new Set<Stack>();

/**
 * Stops every stack this file started and did not stop (a failed assertion skips the test's own
 * stop). Each e2e file calls it in afterAll, so no test leaves a stack behind.
 */
export async function stopAllStacks(): Promise<void> {
  await Promise.all([...running].map((stack) => stack.stop('SIGTERM')));
}

export interface Stack {
  baseUrl: string;
  port: number;
  /** `${baseUrl}/api/platform/dh` */
  api: string;
  /** Each service's Prometheus endpoint (its own port). */
  metrics: { gateway: string; registry: string; media: string; delivery: string };
  process: ChildProcess;
  /** Everything the stack printed (JSON log lines), for assertions and failure messages. */
  output: () => string;
  /** Sends a signal and resolves with the exit code and how long the exit took. */
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; ms: number }>;
}

export interface StackOptions {
  dataDir: string;
  env?: Record<string, string>;
  /** Leave PUBLIC_BASE_URL unset, to test the default a user gets. */
  defaultPublicBaseUrl?: boolean;
  /** Leave the internal gRPC and metrics ports unset, as a user does: the launcher picks them. */
  defaultInternalPorts?: boolean;
  /** How to run it: the launcher directly (default) or the real `npm start` (builds first, slower). */
  command?: 'launcher' | 'npm-start';
}

/**
 * Starts a stack, retrying (up to three times, on new ports) only when a port this harness picked was
 * taken meanwhile by another test worker: between picking a free port and the child binding it, any
 * process may bind it (the launcher then refuses it at start, or a service fails with EADDRINUSE). A
 * port the test sets itself stays strict: that refusal is the answer.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const testSetAPort = Object.keys(options.env ?? {}).some((name) => name.endsWith('PORT'));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(options);
    } catch (err) {
      // grpc-js reports a port taken as "No address added out of total 1 resolved" (its cause, the
      // EADDRINUSE, may be cut from the logged message).
      if (attempt >= 3 || testSetAPort || !/EADDRINUSE|is in use by another process|No address added out of total \d+ resolved/.test(String(err))) throw err;
    }
  }
}

async function startStackOnce(options: StackOptions): Promise<Stack> {
  const [port, registryPort, mediaPort] = [await freePort(), await freePort(), await freePort()];
  const metricsPorts = { gateway: await freePort(), registry: await freePort(), media: await freePort(), delivery: await freePort() };
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(options.defaultInternalPorts
      ? {}
      : {
          REGISTRY_GRPC_PORT: String(registryPort),
          MEDIA_GRPC_PORT: String(mediaPort),
          GATEWAY_METRICS_PORT: String(metricsPorts.gateway),
          REGISTRY_METRICS_PORT: String(metricsPorts.registry),
          MEDIA_METRICS_PORT: String(metricsPorts.media),
          DELIVERY_METRICS_PORT: String(metricsPorts.delivery),
        }),
    DATA_DIR: options.dataDir,
    ...(options.defaultPublicBaseUrl ? {} : { PUBLIC_BASE_URL: baseUrl }),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const [cmd, args] = options.command === 'npm-start' ? ['npm', ['start', '--silent']] : [process.execPath, ['deploy/local/dist/start.js']];
  // detached: its own process group, like a terminal session, so a group signal reaches npm too.
  const child = spawn(cmd, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`stack exited with ${child.exitCode} during start-up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`stack not ready within 90 s:\n${output}`);
    }
    // `npm start` is used as the README says: send requests once it logs "all services started".
    // That line comes after every service, the niced webhook sender too, and /readyz alone does
    // not wait for the sender: a test that cuts the database while it still applies its start-up
    // queries would see it exit, and the launcher stop the stack.
    const started = output.includes('"msg":"all services started"');
    const ready =
      options.command === 'npm-start' || options.defaultInternalPorts
        ? started
        : started && (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false));
    if (ready) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  const stack: Stack = {
    baseUrl,
    port,
    api: `${baseUrl}/api/${options.env?.PLATFORM_SEGMENT ?? 'platform'}/dh`,
    // With the launcher's own choice of ports, its start-up line says where they are.
    metrics: options.defaultInternalPorts
      ? startedLine(output).metrics
      : {
          gateway: `http://127.0.0.1:${metricsPorts.gateway}/metrics`,
          registry: `http://127.0.0.1:${metricsPorts.registry}/metrics`,
          media: `http://127.0.0.1:${metricsPorts.media}/metrics`,
          delivery: `http://127.0.0.1:${metricsPorts.delivery}/metrics`,
        },
    process: child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      const started = Date.now();
      if (child.exitCode === null && child.pid) process.kill(-child.pid, signal);
      const code = await exited;
      running.delete(stack);
      return { code, ms: Date.now() - started };
    },
  };
  running.add(stack);
  return stack;
}

/** The launcher's "all services started" line: public URL, metrics URLs and gRPC addresses. */
export function startedLine(output: string): { metrics: Stack['metrics']; grpc: { registry: string; media: string } } {
  const line = output.split('\n').find((l) => l.includes('"msg":"all services started"'));
  if (!line) throw new Error(`no "all services started" line in:\n${output}`);
  return JSON.parse(line) as { metrics: Stack['metrics']; grpc: { registry: string; media: string } };
}

/** POSTs JSON and returns status, headers and parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}
