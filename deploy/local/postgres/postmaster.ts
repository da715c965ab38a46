import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether a process exists (zombies count as gone: they only wait to be reaped). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // "pid (comm) S ...": the state follows the last ')'.
  return stat === undefined || stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Whether `pid` is a postmaster serving `dataDir` (guards against a recycled pid). Without /proc, trusts the pid file. */
async function isPostmasterOf(pid: number, dataDir: string): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined || cmdline.split('\u0000').includes(dataDir);
}

/** Waits until `pid` is gone; false when it is still alive after `timeoutMs`. */
async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Stops a process politely, then harder: `signals` in order, each given `graceMs` to work. */
export async function stopProcess(pid: number, signals: NodeJS.Signals[], graceMs: number): Promise<void> {
  for (const signal of signals) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, graceMs)) return;
  }
  throw new Error(`process ${pid} did not exit after ${signals.join(', ')}`);
}

/**
 * After a crash or SIGKILL of the previous owner, its postmaster may still run on this data
 * directory: stop it (SIGINT = fast shutdown, which keeps the data consistent). A pid file whose
 * process is gone or is something else is stale: remove it so it cannot block the start.
 */
export async function clearLeftoverPostmaster(dataDir: string, logger: Logger): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const content = await readFile(pidFile, 'utf8').catch(() => undefined);
  if (content === undefined) return;
  const pid = Number(content.split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && (await isAlive(pid)) && (await isPostmasterOf(pid, dataDir))) {
    logger.warn({ pid }, 'embedded Postgres from a previous run is still running: stopping it');
    await stopProcess(pid, ['SIGINT', 'SIGQUIT', 'SIGKILL'], 10_000);
  }
  await unlink(pidFile).catch(() => undefined);
}

/** How long a start waits for a previous owner that is going away before refusing the directory. */
const OWNER_GRACE_MS = 10_000;

/** A process's start time in clock ticks since boot (/proc/<pid>/stat field 22), or undefined without /proc. */
export async function startTimeOf(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** Whether `pid` runs and is the process that recorded `started` (undefined: not recorded, any process with that pid). */
export async function isRunningSince(pid: number, started: unknown): Promise<boolean> {
  return (await isAlive(pid)) && (started === undefined || (await startTimeOf(pid)) === started);
}

/**
 * Marks the data directory as owned by this process. Another live owner means a second stack
 * on the same DATA_DIR: refuse, rather than stop the postmaster it is using. The owner's start
 * time is recorded too, so a recycled pid (a restarted container) does not count as an owner.
 */
export async function claimOwnership(ownerFile: string, dataDirForMessage: string): Promise<() => Promise<void>> {
  let previous: { pid?: unknown; started?: unknown } = {};
  try {
    previous = JSON.parse(await readFile(ownerFile, 'utf8')) as typeof previous;
  } catch {
    // No owner file, or a torn one from a crash: nobody owns the directory.
  }
  const { pid, started } = previous;
  const owned = async () => typeof pid === 'number' && pid !== process.pid && (await isRunningSince(pid, started));
  // A stack that is stopping (its keeper stops Postgres, then releases the directory) is given a
  // moment, so a restart right after a stop or a killed launcher is not refused.
  const deadline = Date.now() + OWNER_GRACE_MS;
  while ((await owned()) && Date.now() < deadline) await sleep(100);
  if (await owned()) {
    throw new Error(`DATA_DIR ${dataDirForMessage} is in use by another stack (pid ${pid}); give each instance its own DATA_DIR`);
  }
  await writeFile(ownerFile, JSON.stringify({ pid: process.pid, started: await startTimeOf(process.pid) }));
  return async () => {
    const current = await readFile(ownerFile, 'utf8').catch(() => '');
    if (new RegExp(`^\\{"pid":${process.pid}[,}]`).test(current)) await unlink(ownerFile).catch(() => undefined);
  };
}
