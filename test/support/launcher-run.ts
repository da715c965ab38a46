/** Runs the built launcher (`npm start` without the build) to its exit, for the tests of what it refuses. */
import { spawn } from 'node:child_process';
import { REPO_ROOT } from './stack.js';

/** Resolves with its exit code and everything it printed; kills it after `timeoutMs` (a launcher that did not refuse). */
export function runLauncher(env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['deploy/local/dist/start.js'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // A launcher that started its stack is stopped as a whole (its group), services and Postgres included.
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGTERM'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}
