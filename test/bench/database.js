// Databases on the DATABASE_URL server: a fresh one per run (dropped at the end), the cached 10 M-event
// scale database (kept while its migrations match the checkout under test), and the checks that
// read what a scenario stored.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const SCALE_DB = 'bench_scale_10m';
export const SCALE_EVENTS = 10_000_000;

/**
 * The server URL with a user name: like libpq, default to PGUSER or the OS user, since node-postgres
 * would otherwise send none (postgres://127.0.0.1:5432/test works for psql, not for pg).
 */
export function withUser(serverUrl) {
  const url = new URL(serverUrl);
  if (!url.username) url.username = process.env.PGUSER || userInfo().username;
  return url.toString();
}

/** Runs `fn(client)` on one connection to `url`, always closing it. */
export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: withUser(url) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the same server as `serverUrl`. */
export function databaseUrl(serverUrl, name) {
  const url = new URL(withUser(serverUrl));
  url.pathname = `/${name}`;
  return url.toString();
}

const ident = (name) => `"${name.replaceAll('"', '""')}"`;

/** Creates database `name` empty (dropping an older one of that name); resolves with its URL. */
export async function createDatabase(serverUrl, name) {
  await withClient(serverUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${ident(name)}`);
  });
  return databaseUrl(serverUrl, name);
}

export async function dropDatabase(serverUrl, name) {
  await withClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
}

/** Version, name and checksum of `<root>/registry-service/migrations/*.sql`, as the registry records them. */
function migrationFiles(root) {
  const dir = join(root, 'registry-service', 'migrations');
  return readdirSync(dir)
    .map((file) => ({ file, match: /^(\d{4,})_([a-z0-9_]+)\.sql$/.exec(file) }))
    .filter(({ match }) => match)
    .map(({ file, match }) => ({ version: Number(match[1]), name: file, checksum: createHash('sha256').update(readFileSync(join(dir, file), 'utf8')).digest('hex') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Whether the cached scale database can be reused for `root`: it exists, has exactly the
 * checkout's migrations applied (same versions, names, checksums) and holds enough events.
 */
export async function scaleDatabaseState(serverUrl, root) {
  const exists = await withClient(serverUrl, async (admin) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [SCALE_DB])).rowCount > 0);
  if (!exists) return { reusable: false, why: 'it does not exist' };
  return withClient(databaseUrl(serverUrl, SCALE_DB), async (db) => {
    const tables = await db.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS m, to_regclass('events') IS NOT NULL AS e`);
    if (!tables.rows[0].m || !tables.rows[0].e) return { reusable: false, why: 'it has no schema' };
    const applied = (await db.query('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).rows;
    const key = (rows) => JSON.stringify(rows.map((r) => [Number(r.version), r.name, r.checksum]));
    if (key(applied) !== key(migrationFiles(root))) return { reusable: false, why: `its migrations differ from ${root}'s` };
    const events = Number((await db.query('SELECT count(*) AS n FROM events')).rows[0].n);
    if (events < SCALE_EVENTS) return { reusable: false, why: `it holds ${events.toLocaleString('en')} events` };
    return { reusable: true, events };
  });
}

/** Rows under a device-name prefix, to check a warm-up created every device and object. */
export async function countDevices(url, prefix) {
  return withClient(url, async (db) => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM devices WHERE device_name LIKE $1) AS devices, (SELECT count(*) FROM objects WHERE device_name LIKE $1) AS objects`,
      [`${prefix}%`],
    );
    return { devices: Number(rows[0].devices), objects: Number(rows[0].objects) };
  });
}

/**
 * What the first-sightings run stored under its device prefix, against its answers: every call
 * named a new device and object, so each device must have one event, one object, and every id
 * answered with a 2xx must be stored once.
 */
export async function firstSightingRows(url, prefix, ids) {
  return withClient(url, async (db) => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM events WHERE device_name LIKE $1) AS events,
              (SELECT count(DISTINCT device_name) FROM events WHERE device_name LIKE $1) AS event_devices,
              (SELECT count(*) FROM devices WHERE device_name LIKE $1) AS devices,
              (SELECT count(*) FROM objects WHERE device_name LIKE $1) AS objects,
              (SELECT count(*) FROM events WHERE id = ANY($2::uuid[])) AS answered_found`,
      [`${prefix}%`, ids.filter(Boolean)],
    );
    return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
  });
}

/** Flushes dirty pages now (superuser only), so a checkpoint after seeding does not land in a measurement. */
export async function checkpoint(serverUrl) {
  await withClient(serverUrl, (admin) => admin.query('CHECKPOINT')).catch(() => undefined);
}
