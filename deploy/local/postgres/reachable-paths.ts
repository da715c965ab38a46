import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, readFile, readlink, realpath, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { blockedAncestor, type PostgresBinaries, type RunAs } from './postgres-binaries.js';

/*
 * Started as root, Postgres runs as the `postgres` user, which must be able to enter every
 * directory above its binaries and its cluster. A checkout under a 0700 directory (root's home,
 * a `mktemp -d` clone) blocks it. Rather than refuse, the two things Postgres itself opens are
 * placed where it can reach them: a copy of the binaries (once per version) and the cluster
 * directory, both under a root-owned, world-traversable base. DATA_DIR keeps everything the
 * service reads itself (password, owner file, log) and a symlink to the cluster, so a restart on
 * the same DATA_DIR finds the same data.
 */

const BASE_NAME = 'dynamic-events-postgres';

/** /var/tmp survives reboots (FHS); the OS temp directory is the fallback. */
function baseDir(): string {
  return join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), BASE_NAME);
}

/** Creates `dir` root-owned 0755, or checks that an existing one is: only root may write there. */
async function ensureTrustedDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new Error(`${dir} must be a directory owned by root and writable only by root (it holds Postgres binaries and data): remove it and start again`);
  }
}

/** The binaries as given when the postgres user can reach them, else a verified copy it can reach. */
export async function reachableBinaries(binaries: PostgresBinaries, runAs: RunAs, logger: Logger): Promise<PostgresBinaries> {
  if (!(await blockedAncestor(binaries.postgres, runAs))) return binaries;
  // The platform package's `native` directory: bin/, lib/ and share/, which Postgres finds relative to itself.
  const native = resolve(dirname(binaries.postgres), '..');
  // Named by package version (and binary size, as a cheap guard): every checkout shares one copy.
  const { version } = JSON.parse(await readFile(join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const stamp = `${version}-${(await stat(binaries.postgres)).size}`;
  const base = baseDir();
  await ensureTrustedDir(base);
  const target = join(base, `bin-${platform()}-${arch()}-${stamp}`);
  if (!existsSync(join(target, '.complete'))) {
    const scratch = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await cp(native, scratch, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(scratch, '.complete'), '');
    // Another registry may have staged the same copy meanwhile: keep whichever landed first.
    await rename(scratch, target).catch(async () => rm(scratch, { recursive: true, force: true }));
    logger.info({ from: native, to: target }, 'embedded Postgres binaries copied where the postgres user can reach them');
  }
  await ensureTrustedDir(target);
  return { postgres: join(target, 'bin', 'postgres'), initdb: join(target, 'bin', 'initdb') };
}

/**
 * Where the cluster lives: `${root}/data` normally; when the postgres user cannot reach `root`, a
 * directory under the trusted base named after `root`, linked from `${root}/data`. Returns the real
 * cluster path and the directory beside it for initdb's scratch files.
 */
export async function clusterLocation(root: string, runAs: RunAs | undefined, logger: Logger): Promise<{ dataDir: string; workDir: string }> {
  const link = join(root, 'data');
  const linked = await lstat(link).catch(() => undefined);
  if (linked?.isSymbolicLink()) {
    const dataDir = resolve(root, await readlink(link));
    return { dataDir, workDir: dirname(dataDir) };
  }
  const blocked = runAs ? await blockedAncestor(root, runAs) : undefined;
  if (!blocked) return { dataDir: link, workDir: root };
  if (linked) {
    throw new Error(`embedded Postgres data at ${link} sits inside ${blocked}, which the postgres user cannot enter: move it out, or allow that user to enter ${blocked}`);
  }
  const base = baseDir();
  await ensureTrustedDir(base);
  const workDir = join(base, `cluster-${createHash('sha256').update(await realpath(root)).digest('hex').slice(0, 16)}`);
  await ensureTrustedDir(workDir);
  const dataDir = join(workDir, 'data');
  await symlink(dataDir, link);
  logger.warn({ dataDir, link, blocked }, 'DATA_DIR is not reachable by the postgres user: the cluster lives outside it, linked from DATA_DIR');
  return { dataDir, workDir };
}
