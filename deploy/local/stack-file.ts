/**
 * `DATA_DIR/stack.json`: where the stack started from this DATA_DIR listens, for the tools beside it.
 * The registry's CLI reads `registry` and `internalToken` from it, so it calls this stack's registry
 * (rather than a default port that another stack may hold) with this stack's credential. Written once every service is ready, removed when the
 * stack stops; `pid` (the launcher's) tells a reader that a file was left by a killed launcher.
 */
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

interface StackFile {
  pid: number;
  /** The launcher's start time (postmaster.ts startTimeOf), so a recycled pid is not taken for it. */
  started: string | undefined;
  /** The events URL, as the start-up line shows it. */
  url: string;
  /** The gateway on this machine (`PUBLIC_BASE_URL` may name an ingress instead). */
  gateway: string;
  /** gRPC addresses (host:port). */
  registry: string;
  media: string;
  /** Each service's `/metrics` URL. */
  metrics: Record<string, string>;
  /** REGISTRY_INTERNAL_TOKEN, which the CLI presents to TokenService: the file is readable by its owner only. */
  internalToken: string;
}

function stackFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'stack.json');
}

/**
 * Why DATA_DIR cannot be used, when a running launcher's stack.json is in it (its pid alive, with
 * the start time it wrote): said at once, with the port checks, before anything starts. A file a
 * stopped or killed launcher left, or whose pid another process has now, holds nothing.
 */
export async function dataDirInUse(dataDir: string, isRunning: (pid: number, started: unknown) => Promise<boolean>): Promise<string | undefined> {
  let file: { pid?: unknown; started?: unknown; gateway?: unknown };
  try {
    file = JSON.parse(await readFile(stackFilePath(dataDir), 'utf8')) as typeof file;
  } catch {
    return undefined;
  }
  const { pid, started, gateway } = file;
  if (typeof pid !== 'number' || pid === process.pid || !(await isRunning(pid, started))) return undefined;
  const where = typeof gateway === 'string' ? `, ${gateway}` : '';
  return `DATA_DIR ${dataDir} is in use by another stack (pid ${pid}${where}): give a second stack its own PORT and DATA_DIR (PORT=8081 DATA_DIR=./.data-8081 npm start)`;
}

/** Replaces the file in one step (a reader never sees half of it). */
export async function writeStackFile(dataDir: string, stack: StackFile): Promise<void> {
  const path = stackFilePath(dataDir);
  await mkdir(resolve(dataDir), { recursive: true });
  await writeFile(`${path}.${process.pid}.tmp`, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.${process.pid}.tmp`, path);
}

/** Removes the file if this process wrote it (another stack on the same DATA_DIR may have replaced it). */
export async function removeStackFile(dataDir: string): Promise<void> {
  const path = stackFilePath(dataDir);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  let pid: unknown;
  try {
    pid = text === undefined ? undefined : (JSON.parse(text) as { pid?: unknown }).pid;
  } catch {
    pid = undefined;
  }
  if (pid === process.pid) await unlink(path).catch(() => undefined);
}
