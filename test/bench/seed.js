// The scale scenario's database: 10 M events already recorded, kept between runs (seeding takes minutes).
import pg from 'pg';

export const SCALE_EVENTS = 10_000_000;
const CHUNK = 1_000_000;

/** Rows in `events`, or -1 when the schema is not there yet. */
export async function eventCount(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT CASE WHEN to_regclass('events') IS NULL THEN -1 ELSE (SELECT count(*) FROM events) END AS n`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * Fills a migrated database with 1,000 devices and objects and SCALE_EVENTS events spread over the
 * past 30 days in time order, with UUID v7-shaped ids (48-bit milliseconds, version 7, variant 10).
 */
export async function seed(url, log) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`INSERT INTO devices (device_name) SELECT 'bench-hist-' || i FROM generate_series(0, 999) i ON CONFLICT DO NOTHING`);
    await client.query(`INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name)
      SELECT 'bench.history.cam-' || i, 'bench.history', 'cam-' || i, 'History camera', 'video_channel', 'bench-hist-' || i FROM generate_series(0, 999) i ON CONFLICT DO NOTHING`);
    await client.query(`INSERT INTO event_types (domain, event_type, display_name, display_description) VALUES ('bench.history', 'motion_detected', 'Motion', 'Seeded') ON CONFLICT DO NOTHING`);
    const start = Date.now() - 30 * 86_400_000;
    for (let from = 0; from < SCALE_EVENTS; from += CHUNK) {
      const began = Date.now();
      await client.query(`INSERT INTO events (id, object_ref, device_name, domain, event_type, images, additional_properties, created_at, updated_at)
        SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 14, 3) || '8' || substr(h, 18, 15))::uuid,
               'bench.history.cam-' || (i % 1000), 'bench-hist-' || (i % 1000), 'bench.history', 'motion_detected',
               ARRAY['https://cdn.example.com/' || i || '.jpg'], jsonb_build_object('zone', 'lobby', 'seq', i::text), ts, ts
        FROM (SELECT i, $1::int8 + i * 259 AS ms, md5(i::text) AS h, to_timestamp(($1::int8 + i * 259) / 1000.0) AS ts
              FROM generate_series($2::int8, $3::int8) i) s`, [start, from, Math.min(from + CHUNK, SCALE_EVENTS) - 1]);
      log(`seeded ${Math.min(from + CHUNK, SCALE_EVENTS).toLocaleString()} events (${((Date.now() - began) / 1000).toFixed(0)} s for this million)`);
    }
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}
