import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Where the CLI calls the registry, and why there (printed on stderr, so the operator knows which stack answered). */
interface Target {
  address: string;
  source: string;
  /** The stack's REGISTRY_INTERNAL_TOKEN, when the address came from its stack file. Never printed. */
  credential?: string;
}

interface TargetSettings {
  /** --address */
  flag: string | undefined;
  REGISTRY_ADDR: string | undefined;
  /** Only when set: unset, a local stack's own port comes before the default. */
  REGISTRY_GRPC_PORT: number | undefined;
  DATA_DIR: string;
}

/** The registry port everyone gets when nothing else is known (the registry's own default). */
const DEFAULT_ADDRESS = '127.0.0.1:50051';

/**
 * The registry to call (with the stack's credential when it is a local stack's), the first of: --address, REGISTRY_ADDR, REGISTRY_GRPC_PORT on this host
 * (how it runs in a registry pod), the registry of the stack `npm start` runs from DATA_DIR (its
 * launcher writes `DATA_DIR/stack.json` and removes it when it stops), 127.0.0.1:50051. The stack
 * file matters when several stacks run on one machine: the default port may be another stack's.
 */
export async function resolveTarget(settings: TargetSettings): Promise<Target> {
  if (settings.flag !== undefined) return { address: settings.flag, source: '--address' };
  if (settings.REGISTRY_ADDR !== undefined) return { address: settings.REGISTRY_ADDR, source: 'REGISTRY_ADDR' };
  if (settings.REGISTRY_GRPC_PORT !== undefined) return { address: `127.0.0.1:${settings.REGISTRY_GRPC_PORT}`, source: 'REGISTRY_GRPC_PORT' };
  const file = join(resolve(settings.DATA_DIR), 'stack.json');
  const stack = await readStackFile(file);
  if (stack === undefined) return { address: DEFAULT_ADDRESS, source: `default: no stack started by npm start runs from ${file}` };
  if (!isRunning(stack.pid)) return { address: DEFAULT_ADDRESS, source: `default: ${file} was left by a stack that is gone (pid ${stack.pid})` };
  const source = `the stack npm start runs from ${file}, pid ${stack.pid}`;
  return { address: stack.registry, source, ...(stack.internalToken === undefined ? {} : { credential: stack.internalToken }) };
}

interface StackFile {
  pid: number;
  registry: string;
  internalToken: string | undefined;
}

/** The launcher's stack file (deploy/local/stack-file.ts): its pid, the registry's address and credential; undefined when absent or not one. */
async function readStackFile(file: string): Promise<StackFile | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const { pid, registry, internalToken } = JSON.parse(text) as { pid?: unknown; registry?: unknown; internalToken?: unknown };
    if (typeof pid !== 'number' || typeof registry !== 'string') return undefined;
    return { pid, registry, internalToken: typeof internalToken === 'string' ? internalToken : undefined };
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
