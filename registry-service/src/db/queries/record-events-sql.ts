import { micros } from './query.js';

/*
 * The texts of the write statement (record-events.ts runs them). Parameters: $1 device names,
 * $2-$7 objects, $8-$11 event types, $12 the events (jsonb), $13-$15 the token creating each device,
 * object and event type (NULL: none), $16 the byte size of $12's text (the commit log's event_bytes),
 * then, in the variant with keys, the Idempotency-Keys.
 *
 * One statement, so one round trip and no BEGIN/COMMIT: a single statement is atomic on its own
 * (a failing event rolls back the entities too). Each CTE inserts with ON CONFLICT DO NOTHING, so a
 * RETURNed row is one this call created and an existing row is kept unchanged; a concurrent creator's
 * uncommitted row makes the insert wait for its outcome, as in separate statements.
 *
 * Sibling CTEs run in an unspecified order and share one snapshot. Each insert therefore first counts
 * the previous CTE's rows (a one-time filter that runs it to completion): devices, objects, event
 * types, events, always in that order and each list sorted, so concurrent calls take unique-index
 * locks in one global order and cannot deadlock. Foreign keys hold although the new parent rows are
 * invisible to the CTEs' snapshot: Postgres checks them in AFTER triggers at the end of the statement,
 * which see every row the statement inserted (and rows other transactions committed meanwhile).
 */
const ENTITY_AND_EVENT_CTES = `
WITH new_devices AS (
  INSERT INTO devices (device_name, kind, created_by_token_id)
  SELECT name, 'generic', token FROM unnest($1::text[], $13::uuid[]) WITH ORDINALITY AS t(name, token, ord)
  ORDER BY ord
  ON CONFLICT (device_name) DO NOTHING
  RETURNING device_name, created_by_token_id
), new_objects AS (
  INSERT INTO objects (id, object_domain, object_id, object_name, object_type, device_name, created_by_token_id)
  SELECT id, object_domain, object_id, object_name, object_type, device_name, token
  FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $14::uuid[])
    WITH ORDINALITY AS t(id, object_domain, object_id, object_name, object_type, device_name, token, ord)
  WHERE (SELECT count(*) FROM new_devices) >= 0
  ORDER BY ord
  ON CONFLICT (id) DO NOTHING
  RETURNING id, created_by_token_id
), new_event_types AS (
  INSERT INTO event_types (domain, event_type, display_name, display_description, created_by_token_id)
  SELECT domain, event_type, display_name, display_description, token
  FROM unnest($8::text[], $9::text[], $10::text[], $11::text[], $15::uuid[])
    WITH ORDINALITY AS t(domain, event_type, display_name, display_description, token, ord)
  WHERE (SELECT count(*) FROM new_objects) >= 0
  ORDER BY ord
  ON CONFLICT (domain, event_type) DO NOTHING
  RETURNING domain, event_type
), new_events AS (
  INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties, token_id, occurred_at)
  SELECT (e->>'id')::uuid, e->>'object_ref', e->>'device_name', e->>'domain', e->>'event_type',
         ARRAY(SELECT x FROM jsonb_array_elements_text(e->'images') WITH ORDINALITY AS i(x, n) ORDER BY n),
         ARRAY(SELECT x FROM jsonb_array_elements_text(e->'video_clips') WITH ORDINALITY AS v(x, n) ORDER BY n),
         e->'properties', (e->>'token_id')::uuid,
         timestamptz 'epoch' + (e->>'occurred_us')::int8 * interval '1 microsecond'
  FROM jsonb_array_elements($12::jsonb) WITH ORDINALITY AS t(e, ord)
  WHERE (SELECT count(*) FROM new_event_types) >= 0
  ORDER BY ord
  RETURNING id, ${micros('created_at')} AS created_us, ${micros('updated_at')} AS updated_us
)`;

/*
 * max_devices / max_objects (the tokens variant, for batches where an event of a token may create a
 * device or object). The token rows of what this statement created are locked FOR KEY SHARE, in id
 * order, and their policy is read from the locked row: the latest committed one, never a cached
 * copy. UpdateToken locks the row FOR UPDATE, which conflicts with KEY SHARE, so a policy change and
 * a creating statement take turns: the change waits for statements that read the old policy to
 * commit (then counts their creations) and later statements read the new one. KEY SHARE does not
 * conflict with itself or with the counters' update (NO KEY UPDATE), so tokens without a limit
 * never wait for each other. For a token whose policy has a limit, the row is then locked for the
 * update (in id order: no deadlock between two statements) and the creations move its counters;
 * a concurrent statement of the same token waits for that row lock and then counts with this one's
 * creations, so the limit holds under any concurrency; a statement that would pass it fails as a
 * whole (SQLSTATE DE403, migration 0008) and the recorder isolates the event that did it.
 */
const tokenCtes = (after: string) => `, created_by_token AS (
  SELECT created_by_token_id AS token, 1 AS devices, 0 AS objects FROM new_devices WHERE created_by_token_id IS NOT NULL
  UNION ALL
  SELECT created_by_token_id, 0, 1 FROM new_objects WHERE created_by_token_id IS NOT NULL
), creator_tokens AS MATERIALIZED (
  SELECT id, (policy ? 'max_devices' OR policy ? 'max_objects') AS limited FROM tokens
  WHERE id IN (SELECT token FROM created_by_token) AND (SELECT count(*) FROM ${after}) >= 0
  ORDER BY id FOR KEY SHARE
), limited_tokens AS MATERIALIZED (
  SELECT id FROM tokens WHERE id IN (SELECT id FROM creator_tokens WHERE limited) AND (SELECT count(*) FROM creator_tokens) >= 0
  ORDER BY id FOR NO KEY UPDATE
), counted AS (
  UPDATE tokens t SET devices_created = t.devices_created + c.devices, objects_created = t.objects_created + c.objects
  FROM (SELECT token, sum(devices) AS devices, sum(objects) AS objects FROM created_by_token GROUP BY token) c
  WHERE t.id = c.token AND t.id IN (SELECT id FROM limited_tokens) AND (SELECT count(*) FROM limited_tokens) >= 0
  RETURNING t.name, t.devices_created, t.objects_created,
            (t.policy->>'max_devices')::int8 AS max_devices, (t.policy->>'max_objects')::int8 AS max_objects
), over_limit AS (
  SELECT CASE WHEN devices_created > max_devices THEN dynamic_events_token_limit(name, 'devices', max_devices)
              ELSE dynamic_events_token_limit(name, 'objects', max_objects) END AS refused
  FROM counted WHERE devices_created > max_devices OR objects_created > max_objects
)`;

/*
 * The keys go after their events (so lock order stays global), plain INSERT without ON CONFLICT:
 * a key another transaction committed meanwhile fails the statement with a unique violation, and
 * nothing of it is committed (fromKeyConflict → ALREADY_EXISTS, then the caller replays). A data-
 * modifying CTE always runs to completion, referenced or not; the FK to events is checked at the end.
 */
const keysCte = (first: number, after: string) => `, new_keys AS (
  INSERT INTO idempotency_keys (scope, key, request_hash, event_id)
  SELECT scope, key, request_hash, event_id
  FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::uuid[])
    WITH ORDINALITY AS t(scope, key, request_hash, event_id, ord)
  WHERE (SELECT count(*) FROM ${after}) >= 0
  ORDER BY ord
  RETURNING 1
)`;

/*
 * The commit log row goes LAST, gated on the previous CTE like the others: nextval runs after every
 * insert, so after every wait on another writer's uncommitted row (see migration 0004 for why that
 * orders commits causally). It holds no lock: concurrent statements never wait for each other here.
 */
const logCte = (after: string) => `, logged AS (
  INSERT INTO commit_log (seq, device_names, object_ids, type_domains, type_names, event_ids, event_bytes)
  SELECT nextval('commit_seq'),
         ARRAY(SELECT device_name FROM new_devices ORDER BY device_name),
         ARRAY(SELECT id FROM new_objects ORDER BY id),
         ARRAY(SELECT domain FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT event_type FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT (e->>'id')::uuid FROM jsonb_array_elements($12::jsonb) WITH ORDINALITY AS t(e, ord) ORDER BY ord),
         $16::int8
  WHERE (SELECT count(*) FROM ${after}) >= 0
  RETURNING seq
)`;

const RESULT_SELECT = `
SELECT 'device' AS kind, device_name AS key, NULL AS event_type, NULL::int8 AS created_us, NULL::int8 AS updated_us FROM new_devices
UNION ALL SELECT 'object', id, NULL, NULL, NULL FROM new_objects
UNION ALL SELECT 'event_type', domain, event_type, NULL, NULL FROM new_event_types
UNION ALL SELECT 'event', id::text, NULL, created_us, updated_us FROM new_events
UNION ALL SELECT 'commit_seq', seq::text, NULL, NULL, NULL FROM logged`;

/** A SELECT CTE runs only when referenced: the limits' check must be. */
const LIMITS_SELECT = `
UNION ALL SELECT 'refused', refused::text, NULL, NULL, NULL FROM over_limit`;

/** Which parts a batch needs; events without keys or a token creating something (the usual case) pay for neither. */
export interface StatementShape {
  /** Some event of a token may create a device or object: its policy's limits apply. */
  tokens: boolean;
  keys: boolean;
}

/** The statement's text and its prepared-statement name for a shape (four texts in all). */
export function recordBatchStatement(shape: StatementShape): { text: string; name: string } {
  let text = ENTITY_AND_EVENT_CTES;
  let last = 'new_events';
  if (shape.tokens) {
    text += tokenCtes(last);
    last = 'counted';
  }
  if (shape.keys) {
    text += keysCte(17, last);
    last = 'new_keys';
  }
  text += logCte(last) + RESULT_SELECT + (shape.tokens ? LIMITS_SELECT : '');
  return { text, name: `registry-record-batch${shape.tokens ? '-tokens' : ''}${shape.keys ? '-keys' : ''}` };
}
