import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type pg from 'pg';
import { expect } from 'vitest';
import { loadMigrations, MIGRATIONS_DIR, runMigrations } from '../src/db/migrate.js';
import { silent } from './helpers.js';

/** Applies the shipped migrations numbered up to `version` only (a database of an earlier release). */
export async function migrateThrough(pool: pg.Pool, version: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  try {
    for (const m of await loadMigrations()) if (m.version <= version) await copyFile(new URL(m.name, MIGRATIONS_DIR), join(dir, m.name));
    await runMigrations(pool, silent, pathToFileURL(`${dir}/`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Stores `n` events directly (as the bench's seed does: no commit log), over devices `prefix`-0..3
 * and the past days. Their ids are time-ordered (UUID v7 of created_at, as the registry makes them),
 * below those ingested now; every third starts with f instead, so the bound lies above the ids
 * ingested meanwhile and the walk reaches those after the earlier ones.
 */
export async function storeEarlierEvents(pool: pg.Pool, prefix: string, n: number): Promise<void> {
  await pool.query(`INSERT INTO devices (device_name) SELECT $1 || '-' || i FROM generate_series(0, 3) AS i`, [prefix]);
  await pool.query(
    `INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name)
     SELECT 'acme.camera.lpr.' || $1 || '-' || i, 'acme.camera.lpr', $1 || '-' || i, 'cam', 'video_channel', $1 || '-' || i FROM generate_series(0, 3) AS i`,
    [prefix],
  );
  await pool.query(`INSERT INTO event_types (domain, event_type, display_name, display_description) VALUES ('acme.camera.lpr', 'motion', 'Motion', '') ON CONFLICT DO NOTHING`);
  await pool.query(
    `INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties, created_at, updated_at)
     SELECT CASE WHEN i % 3 = 0 THEN ('f' || substr(md5(random()::text), 2, 31))::uuid
                 ELSE (lpad(to_hex((extract(epoch FROM now() - make_interval(mins => i * 317)) * 1000)::int8), 12, '0') || '7' || substr(md5(random()::text), 1, 19))::uuid END,
            'acme.camera.lpr.' || $1 || '-' || i % 4, $1 || '-' || i % 4, 'acme.camera.lpr', 'motion', '{}', '{}', '{}',
            now() - make_interval(mins => i * 317), now()
     FROM generate_series(1, $2::int) AS i`,
    [prefix, n],
  );
}

/** Every count row and last_seen_at equals what a GROUP BY over the events themselves gives. */
export async function expectCountsOfEvents(pool: pg.Pool): Promise<void> {
  const widths = `(VALUES ('minute'), ('hour'), ('day')) AS w(width)`;
  const byDevice = await pool.query(
    `(SELECT width, start, device_name, domain, event_type, n FROM event_counts
      EXCEPT SELECT w.width, date_trunc(w.width, created_at, 'UTC'), device_name, domain, event_type, count(*) FROM events CROSS JOIN ${widths} GROUP BY 1, 2, 3, 4, 5)
     UNION ALL
     (SELECT w.width, date_trunc(w.width, created_at, 'UTC'), device_name, domain, event_type, count(*) FROM events CROSS JOIN ${widths} GROUP BY 1, 2, 3, 4, 5
      EXCEPT SELECT width, start, device_name, domain, event_type, n FROM event_counts)`,
  );
  expect(byDevice.rows, 'event_counts rows that differ from the events').toEqual([]);
  const byType = await pool.query(
    `(SELECT width, start, domain, event_type, n FROM event_type_counts
      EXCEPT SELECT w.width, date_trunc(w.width, created_at, 'UTC'), domain, event_type, count(*) FROM events CROSS JOIN ${widths} GROUP BY 1, 2, 3, 4)
     UNION ALL
     (SELECT w.width, date_trunc(w.width, created_at, 'UTC'), domain, event_type, count(*) FROM events CROSS JOIN ${widths} GROUP BY 1, 2, 3, 4
      EXCEPT SELECT width, start, domain, event_type, n FROM event_type_counts)`,
  );
  expect(byType.rows, 'event_type_counts rows that differ from the events').toEqual([]);
  const seen = await pool.query(
    `SELECT d.device_name, d.last_seen_at, l.at FROM devices d LEFT JOIN (SELECT device_name, max(created_at) AS at FROM events GROUP BY 1) l USING (device_name)
     WHERE d.last_seen_at IS DISTINCT FROM l.at
     UNION ALL
     SELECT o.id, o.last_seen_at, l.at FROM objects o LEFT JOIN (SELECT object_ref, max(created_at) AS at FROM events GROUP BY 1) l ON l.object_ref = o.id
     WHERE o.last_seen_at IS DISTINCT FROM l.at`,
  );
  expect(seen.rows, 'devices and objects whose last_seen_at is not their latest event').toEqual([]);
}
