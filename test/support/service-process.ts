/**
 * One service's `dist/main.js` as its own process, the way a container runs it (no launcher), and a
 * small closed-loop load generator: what the per-service shutdown tests need.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TEST_INTERNAL_TOKEN } from './servers.js';
import { REPO_ROOT } from './stack.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed (JSON log lines). */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill: (signal: NodeJS.Signals) => void;
}

const running = new Set<ChildProcess>();

/** Starts `<dir>/dist/main.js` with only the given environment (plus PATH, and the tests' REGISTRY_INTERNAL_TOKEN unless given). */
export function spawnService(dir: 'registry-service' | 'media-service' | 'ingest-gateway', env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, dir, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => output, exited, kill: (signal) => child.kill(signal) };
}

/** Kills whatever a failed test left running. */
export function killAllServices(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Polls `check` until it is true; fails with `what` and the process output after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, service?: ServiceProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (service && service.child.exitCode !== null) throw new Error(`${what}: the process exited\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${service?.output() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface CallResult {
  startedAt: number;
  endedAt: number;
  /** "OK" or what the call failed with (a gRPC code name, an HTTP status, an error code). */
  outcome: string;
}

/**
 * `concurrency` workers call `call` back to back until `stop()` or until one learns the server is
 * gone (`isGone(outcome)`: connection refused). Every result is kept, with its start and end time.
 */
export function closedLoop(call: () => Promise<string>, concurrency: number, isGone: (outcome: string) => boolean) {
  const results: CallResult[] = [];
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      const startedAt = performance.now();
      const outcome = await call().catch((err: unknown) => `threw ${(err as Error).message}`);
      results.push({ startedAt, endedAt: performance.now(), outcome });
      if (isGone(outcome)) return;
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  return {
    results,
    done,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
