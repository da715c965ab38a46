// Fills the migrated scale database with history: 1,000 devices and their objects, one event type,
// then 10 M events over the past 30 days in created_at order, with time-ordered (UUID v7) ids, built
// in SQL with generate_series, 1 M rows per statement. Takes minutes; the database is kept for reuse.
import { SCALE_EVENTS, withClient } from './database.js';

const CHUNK = 1_000_000;
const DOMAIN = 'bench.history.video';
const SPAN_US = 30 * 86_400_000_000; // 30 days

/**
 * One million events: ids are UUID v7 (48-bit ms of created_at, version 7, then the random bits and
 * the 10xx variant nibble of a gen_random_uuid()); like real events, each has a snapshot URL, every
 * 10th a stored image, every 4th a clip, and a few string properties.
 */
const INSERT_EVENTS = `
INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties, created_at, updated_at)
SELECT (lpad(to_hex(us / 1000), 12, '0') || '7' || substr(r, 14, 3) || substr(r, 17, 16))::uuid,
       '${DOMAIN}.cam-' || i % 1000, 'bench-hist-' || i % 1000, '${DOMAIN}', 'motion_detected',
       CASE WHEN i % 10 = 0
            THEN ARRAY['https://cdn.example.com/snapshots/' || i || '.jpg', 'http://localhost:8080/api/platform/dh/media/' || md5(r) || md5(i::text) || '.png']
            ELSE ARRAY['https://cdn.example.com/snapshots/' || i || '.jpg'] END,
       CASE WHEN i % 4 = 0 THEN ARRAY['https://cdn.example.com/clips/' || i || '.mp4'] ELSE '{}'::text[] END,
       jsonb_build_object('zone', (ARRAY['lobby', 'entrance', 'parking', 'warehouse'])[1 + i % 4],
                          'confidence', to_char(0.5 + (i % 50) / 100.0, 'FM0.00'), 'track_id', i::text),
       to_timestamp(us / 1e6), to_timestamp(us / 1e6)
FROM (SELECT i, $1::int8 + i * ($2::int8 / ${SCALE_EVENTS}) AS us, replace(gen_random_uuid()::text, '-', '') AS r
      FROM generate_series($3::int8, $4::int8) AS i) AS s`;

/** The entities the history refers to. */
async function seedEntities(db) {
  await db.query(`INSERT INTO devices (device_name) SELECT 'bench-hist-' || i FROM generate_series(0, 999) AS i ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name)
    SELECT '${DOMAIN}.cam-' || i, '${DOMAIN}', 'cam-' || i, 'History camera ' || i, 'video_channel', 'bench-hist-' || i
    FROM generate_series(0, 999) AS i ON CONFLICT DO NOTHING`);
  await db.query(`INSERT INTO event_types (domain, event_type, display_name, display_description)
    VALUES ('${DOMAIN}', 'motion_detected', 'Motion detected', 'Motion was detected in the field of view') ON CONFLICT DO NOTHING`);
}

/** The secondary indexes of events (not the primary key), to build them once after the bulk insert. */
async function secondaryIndexes(db) {
  const { rows } = await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'events'
    AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'events'::regclass)`);
  return rows;
}

/** Seeds the database at `url` (migrated, no events yet); resolves with the seconds it took. */
export async function seedScale(url, log) {
  const began = Date.now();
  await withClient(url, async (db) => {
    await db.query(`SET synchronous_commit = off; SET maintenance_work_mem = '512MB'; SET statement_timeout = 0`);
    // The rows are consistent by construction: skip the per-row foreign-key triggers when allowed.
    await db.query('SET session_replication_role = replica').catch(() => log('not a superuser: foreign keys are checked row by row (slower)'));
    await seedEntities(db);
    const indexes = await secondaryIndexes(db);
    for (const { indexname } of indexes) await db.query(`DROP INDEX "${indexname}"`);
    try {
      const start = (Date.now() * 1000) - SPAN_US;
      for (let from = 0; from < SCALE_EVENTS; from += CHUNK) {
        const t = Date.now();
        await db.query(INSERT_EVENTS, [start, SPAN_US, from, Math.min(from + CHUNK, SCALE_EVENTS) - 1]);
        log(`seeded ${(Math.min(from + CHUNK, SCALE_EVENTS) / 1e6).toFixed(0)} M events (${((Date.now() - t) / 1000).toFixed(1)} s for this chunk)`);
      }
    } finally {
      for (const { indexname, indexdef } of indexes) {
        const t = Date.now();
        await db.query(indexdef);
        log(`built ${indexname} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
      }
    }
    // The events bypassed the commit log the counts' pass reads: build their counts and last_seen_at at once.
    const counted = Date.now();
    await db.query('SELECT dynamic_events_rebuild_counts()');
    log(`counted the events (${((Date.now() - counted) / 1000).toFixed(1)} s)`);
    const t = Date.now();
    await db.query('VACUUM ANALYZE');
    log(`VACUUM ANALYZE (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  });
  return (Date.now() - began) / 1000;
}
