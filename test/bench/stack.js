// Starts the stack as `npm start` does (deploy/local/start.js) on free ports, and a database for it.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A database on the DATABASE_URL server: `name` is created fresh unless `keep` and it exists. */
export async function database(serverUrl, name, { fresh = true } = {}) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount > 0;
    if (exists && fresh) await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    if (!exists || fresh) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), created: fresh, drop: () => dropDatabase(serverUrl, name) };
}

async function dropDatabase(serverUrl, name) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
}

/** Starts `<root>/deploy/local/start.js`; resolves once /readyz answers. */
export async function startStack(root, env) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  chmodSync(dataDir, 0o755);
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  const child = spawn(process.execPath, ['deploy/local/start.js'], {
    cwd: root,
    env: {
      ...process.env, ...env, PORT: String(ports[0]), HOST: '127.0.0.1', REGISTRY_GRPC_PORT: String(ports[1]), MEDIA_GRPC_PORT: String(ports[2]),
      GATEWAY_METRICS_PORT: String(ports[3]), REGISTRY_METRICS_PORT: String(ports[4]), MEDIA_METRICS_PORT: String(ports[5]), DATA_DIR: dataDir, LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${ports[0]}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600 || child.exitCode !== null) throw new Error('the stack did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    pid: child.pid,
    url: `${base}/api/platform/dh/dynamic-events`,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
