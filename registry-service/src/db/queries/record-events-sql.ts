import { FILLED_COLUMNS, WRITTEN_COLUMNS } from './event-columns.js';
import { DEVICE_COLUMNS, EVENT_TYPE_COLUMNS, KEY_COLUMNS, OBJECT_COLUMNS, unnestRows, type Parameters } from './entity-inserts.js';
import type { BatchInput } from './record-batch-rows.js';
import { createStatementParameters } from './statement-parameters.js';

/*
 * The texts of the write statement (record-events.ts runs them). Parameters (numbered as the text
 * declares them, statement-parameters.ts): one array per column of the devices, objects and event
 * types (the token creating each, NULL: none), the events as one jsonb (EVENT_TABLE's written
 * columns, by name), the byte size of its text (the commit log's event_bytes), and, in the variant
 * with keys, one array per column of the Idempotency-Keys.
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
function entityAndEventCtes(p: Parameters, events: string): string {
  const devices = unnestRows(p, 'devices', (b) => b.devices, DEVICE_COLUMNS, { kind: "'generic'" });
  const objects = unnestRows(p, 'objects', (b) => b.objects, OBJECT_COLUMNS);
  const types = unnestRows(p, 'event_types', (b) => b.types, EVENT_TYPE_COLUMNS);
  return `
WITH new_devices AS (
  ${devices}
  ORDER BY ord
  ON CONFLICT (device_name) DO NOTHING
  RETURNING device_name, created_by_token_id
), new_objects AS (
  ${objects}
  WHERE (SELECT count(*) FROM new_devices) >= 0
  ORDER BY ord
  ON CONFLICT (id) DO NOTHING
  RETURNING id, created_by_token_id
), new_event_types AS (
  ${types}
  WHERE (SELECT count(*) FROM new_objects) >= 0
  ORDER BY ord
  ON CONFLICT (domain, event_type) DO NOTHING
  RETURNING domain, event_type
), new_events AS (
  INSERT INTO events (${WRITTEN_COLUMNS.map((c) => c.column).join(', ')})
  SELECT ${WRITTEN_COLUMNS.map((c) => c.sql.fromJson('e', c.name)).join(',\n         ')}
  FROM jsonb_array_elements(${events}) WITH ORDINALITY AS t(e, ord)
  WHERE (SELECT count(*) FROM new_event_types) >= 0
  ORDER BY ord
  RETURNING id, ${FILLED_COLUMNS.map((c) => `${c.sql.select(c.column)} AS ${c.name}`).join(', ')}
)`;
}

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
const keysCte = (p: Parameters, after: string) => `, new_keys AS (
  ${unnestRows(p, 'idempotency_keys', (b) => b.keys, KEY_COLUMNS)}
  WHERE (SELECT count(*) FROM ${after}) >= 0
  ORDER BY ord
  RETURNING 1
)`;

/*
 * The commit log row goes LAST, gated on the previous CTE like the others: nextval runs after every
 * insert, so after every wait on another writer's uncommitted row (see migration 0004 for why that
 * orders commits causally). It holds no lock: concurrent statements never wait for each other here.
 */
const logCte = (p: Parameters, events: string, after: string) => `, logged AS (
  INSERT INTO commit_log (seq, device_names, object_ids, type_domains, type_names, event_ids, event_bytes)
  SELECT nextval('commit_seq'),
         ARRAY(SELECT device_name FROM new_devices ORDER BY device_name),
         ARRAY(SELECT id FROM new_objects ORDER BY id),
         ARRAY(SELECT domain FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT event_type FROM new_event_types ORDER BY domain, event_type),
         ARRAY(SELECT (e->>'id')::uuid FROM jsonb_array_elements(${events}) WITH ORDINALITY AS t(e, ord) ORDER BY ord),
         ${p.add('int8', (b) => Buffer.byteLength(b.eventsJson))}
  WHERE (SELECT count(*) FROM ${after}) >= 0
  RETURNING seq
)`;

/** The filled columns' names, or a NULL of each type (the rows that are not events). */
const FILLED = FILLED_COLUMNS.map((c) => c.name).join(', ');
const NO_FILLED = FILLED_COLUMNS.map((c) => `NULL::${c.sql.selected}`).join(', ');

const RESULT_SELECT = `
SELECT 'device' AS kind, device_name AS key, NULL AS event_type, ${FILLED_COLUMNS.map((c) => `NULL::${c.sql.selected} AS ${c.name}`).join(', ')} FROM new_devices
UNION ALL SELECT 'object', id, NULL, ${NO_FILLED} FROM new_objects
UNION ALL SELECT 'event_type', domain, event_type, ${NO_FILLED} FROM new_event_types
UNION ALL SELECT 'event', id::text, NULL, ${FILLED} FROM new_events
UNION ALL SELECT 'commit_seq', seq::text, NULL, ${NO_FILLED} FROM logged`;

/** A SELECT CTE runs only when referenced: the limits' check must be. */
const LIMITS_SELECT = `
UNION ALL SELECT 'refused', refused::text, NULL, ${NO_FILLED} FROM over_limit`;

/** Which parts a batch needs; events without keys or a token creating something (the usual case) pay for neither. */
export interface StatementShape {
  /** Some event of a token may create a device or object: its policy's limits apply. */
  tokens: boolean;
  keys: boolean;
}

/** A statement's text, its prepared-statement name and its parameter array for an input. */
interface RecordBatchStatement {
  text: string;
  name: string;
  values(input: BatchInput): unknown[];
}

function buildStatement(shape: StatementShape): RecordBatchStatement {
  const p = createStatementParameters<BatchInput>();
  const events = p.add('jsonb', (b) => b.eventsJson);
  let text = entityAndEventCtes(p, events);
  let last = 'new_events';
  if (shape.tokens) {
    text += tokenCtes(last);
    last = 'counted';
  }
  if (shape.keys) {
    text += keysCte(p, last);
    last = 'new_keys';
  }
  text += logCte(p, events, last) + RESULT_SELECT + (shape.tokens ? LIMITS_SELECT : '');
  return { text, name: `registry-record-batch${shape.tokens ? '-tokens' : ''}${shape.keys ? '-keys' : ''}`, values: p.values };
}

/** The four statements, built once at load: a call only binds its values. */
const STATEMENTS = new Map([false, true].flatMap((tokens) => [false, true].map((keys) => [`${tokens}-${keys}`, buildStatement({ tokens, keys })] as const)));

/** The statement of a shape (built at load). */
export function recordBatchStatement(shape: StatementShape): RecordBatchStatement {
  const statement = STATEMENTS.get(`${shape.tokens}-${shape.keys}`);
  if (!statement) throw new Error('no such statement shape');
  return statement;
}
