/**
 * The launcher's child processes (the three services and the embedded Postgres keeper). Each runs
 * in its own process group, so a terminal's Ctrl-C reaches only the launcher, which stops them in
 * order; each has an IPC channel over which it says it is ready. Readiness is asked of the child
 * itself, never of whatever answers on its port: a port held by another process (another stack)
 * would otherwise pass for a started service.
 */
import { spawn, type ChildProcess } from 'node:child_process';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child<T> {
  name: string;
  process: ChildProcess;
  exited: Promise<Exit>;
  /** The first message `isReady` accepts; rejects when the child exits (or takes longer than `readyWithinMs`) first. */
  ready: Promise<T>;
  /** Asks it to stop (over IPC when it takes a stop message, else SIGTERM); resolves whether it exited 0. */
  stop(): Promise<boolean>;
  /** SIGKILL, for a second signal. */
  kill(): void;
}

interface ChildOptions<T> {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  isReady: (message: unknown) => message is T;
  readyWithinMs: number;
  /** Sent over IPC to ask it to stop (the Postgres keeper); services get SIGTERM. */
  stopMessage?: string;
}

export function startChild<T>(options: ChildOptions<T>): Child<T> {
  const { name } = options;
  const child = spawn(process.execPath, [options.script], { env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not report ready within ${options.readyWithinMs / 1000} s`)), options.readyWithinMs);
    const onMessage = (message: unknown) => {
      if (!options.isReady(message)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (${signal ?? `exit ${code}`})`));
    });
  });
  // A child that exits before it is ready is reported through `ready`; nobody may be waiting on it yet.
  ready.catch(() => undefined);
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    process: child,
    exited,
    ready,
    async stop() {
      if (running()) {
        if (options.stopMessage !== undefined && child.connected) child.send(options.stopMessage);
        else child.kill('SIGTERM');
      }
      return (await exited).code === 0;
    },
    kill() {
      if (running()) child.kill('SIGKILL');
    },
  };
}

/** What a service sends its launcher once it listens (its main.ts, when it has an IPC channel). */
export interface Listening {
  listening: { port: number; metricsPort: number };
}

export function isListening(message: unknown): message is Listening {
  const listening = (message as Partial<Listening> | null)?.listening;
  return typeof listening === 'object' && listening !== null && typeof listening.port === 'number';
}

/** What the embedded Postgres keeper sends once the cluster accepts connections (postgres/guardian.ts). */
export function isPostgresUrl(message: unknown): message is { url: string } {
  return typeof (message as { url?: unknown } | null)?.url === 'string';
}
