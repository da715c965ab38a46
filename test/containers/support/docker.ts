/**
 * The docker CLI, as the container tests use it: run a service container the way the chart runs a
 * pod (read-only root, tmpfs /tmp, no capabilities, no-new-privileges, the image's own user), stop
 * it with a grace period, read its exit code and logs, and remove what this run started.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `docker ARGS` and resolves with its stdout; a non-zero exit rejects with its stderr. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** The image names `npm run test:containers` built; the tests refuse to run without them. */
export function builtImage(service: 'registry-service' | 'media-service' | 'ingest-gateway'): string {
  const prefix = process.env.CONTAINER_IMAGE_PREFIX;
  const tag = process.env.CONTAINER_IMAGE_TAG;
  if (!prefix || !tag) throw new Error('CONTAINER_IMAGE_PREFIX/CONTAINER_IMAGE_TAG unset: run `npm run test:containers`, which builds the images first');
  return `${prefix}/${service}:${tag}`;
}

/** The security flags every service container gets: the chart's pod and container securityContext. */
export const POD_SECURITY = [
  '--read-only',
  // The chart's emptyDir on /tmp; mode 1777 so the image's non-root user can write there.
  '--tmpfs', '/tmp:rw,nosuid,nodev,size=64m,mode=1777',
  '--cap-drop', 'ALL',
  '--security-opt', 'no-new-privileges',
];

/** Containers started by this test file and not yet removed. */
const started = new Set<string>();
const runId = randomBytes(4).toString('hex');

export interface Container {
  name: string;
  /** `docker stop -t graceSeconds`, timed; resolves with the exit code docker recorded. */
  stop: (graceSeconds: number) => Promise<{ exitCode: number; ms: number }>;
  logs: () => Promise<string>;
  /** Waits until it exits by itself (a Job's pod) and resolves with its exit code. */
  exited: () => Promise<number>;
}

/**
 * Starts `image` detached on the host network (no registry or bridge NAT here; every port is
 * chosen at run time, so concurrent runs do not collide). The environment goes through a 0600
 * file, never the command line, since it holds the database URL and S3 keys.
 */
export async function runContainer(role: string, image: string, env: Record<string, string>, args: string[] = []): Promise<Container> {
  const name = `de-test-${runId}-${role}`;
  const dir = mkdtempSync(join(tmpdir(), 'container-env-'));
  const envFile = join(dir, 'env');
  writeFileSync(envFile, Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 });
  try {
    started.add(name);
    await docker('run', '--detach', '--name', name, '--network', 'host', ...POD_SECURITY, '--env-file', envFile, image, ...args);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    name,
    stop: async (graceSeconds) => {
      const begun = performance.now();
      await docker('stop', '--time', String(graceSeconds), name);
      const ms = performance.now() - begun;
      return { exitCode: Number((await docker('inspect', '--format', '{{.State.ExitCode}}', name)).trim()), ms };
    },
    logs: () => containerLogs(name),
    exited: async () => Number((await docker('wait', name)).trim()),
  };
}

/** stdout and stderr of a container, interleaved as docker stored them. */
export async function containerLogs(name: string): Promise<string> {
  const { stdout, stderr } = await run('docker', ['logs', name], { maxBuffer: 64 * 1024 * 1024 });
  return stdout + stderr;
}

/** Removes every container this file started (running or not). */
export async function removeContainers(): Promise<void> {
  if (started.size === 0) return;
  await docker('rm', '--force', ...started).catch(() => undefined);
  started.clear();
}

/** `docker inspect` of a container or image, parsed. */
export async function inspect<T>(what: 'container' | 'image', name: string): Promise<T> {
  return (JSON.parse(await docker(what, 'inspect', name)) as T[])[0]!;
}
