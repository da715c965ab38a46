// What PostgreSQL itself sustains writing the batch scenario's rows: pgbench runs multi-row INSERTs
// of the same events (100 per statement, the devices and objects already there) into the stack's own
// database, with the events' indexes and foreign key and one commit log row per statement, at the
// batch's connections, on the same server. Each statement commits on its own, as the registry's do.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BATCH_EVENTS, DEVICES, DOMAIN } from './bodies.js';
import { cpuDelta, cpuSnapshot } from './processes.js';

const run = promisify(execFile);

/** The bodies' event (bodies.js) as SQL literals: the same columns the registry writes. */
const EVENT_TYPE = 'motion_detected';
const IMAGES = `ARRAY['https://cdn.example.com/snapshots/1.jpg']`;
const CLIPS = `ARRAY['https://cdn.example.com/clips/1.mp4']`;
const PROPERTIES = `'{"zone": "lobby", "confidence": "0.93"}'::jsonb`;

/**
 * One pgbench transaction: batch `:b` (0-9) of the 100-event bodies, as one statement (one round trip
 * and one commit, as the registry's write statement): the events, then their commit log row.
 */
function script() {
  const rows = Array.from({ length: BATCH_EVENTS }, (_, i) => {
    const n = `(:b * ${BATCH_EVENTS} + ${i})`;
    return `(gen_random_uuid(), '${DOMAIN}.cam-' || ${n}, 'bench-dev-' || ${n}, '${DOMAIN}', '${EVENT_TYPE}', ${IMAGES}, ${CLIPS}, ${PROPERTIES})`;
  });
  return `\\set b random(0, ${DEVICES / BATCH_EVENTS - 1})
WITH new_events AS (
  INSERT INTO events (id, object_ref, device_name, domain, event_type, images, video_clips, additional_properties)
  VALUES ${rows.join(',\n  ')}
  RETURNING id
)
INSERT INTO commit_log (seq, device_names, object_ids, type_domains, type_names, event_ids, event_bytes)
SELECT nextval('commit_seq'), '{}', '{}', '{}', '{}', array_agg(id), 0 FROM new_events;
`;
}

/**
 * Runs the script for `seconds` at `clients` connections against `dbUrl` (the stack's database,
 * warmed up: its 1,000 devices and objects exist). Answers events per second and CPU µs per event
 * of pgbench and of the server's backends (`roles().postgres`, as the stack's figures count them).
 */
export async function pgbenchLimit({ dbUrl, clients, seconds, roles }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  const file = join(dir, 'batch.sql');
  writeFileSync(file, script());
  try {
    const postgres = () => ({ postgres: roles().postgres });
    const before = cpuSnapshot(postgres);
    // pgbench's backends end with it: their CPU is read while they run (the last reading counts).
    const last = cpuSnapshot(postgres);
    const sampler = setInterval(() => {
      for (const [pid, us] of cpuSnapshot(postgres).postgres) last.postgres.set(pid, us);
    }, 200);
    const args = ['-n', '-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', file, dbUrl];
    const { stdout } = await run('pgbench', args, { maxBuffer: 1 << 20 }).finally(() => clearInterval(sampler));
    const cpu = cpuDelta(before, last);
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1]);
    if (!Number.isFinite(tps)) throw new Error(`pgbench printed no rate:\n${stdout}`);
    const events = transactions * BATCH_EVENTS;
    return { rps: tps * BATCH_EVENTS, statementsPerSecond: tps, failed, clients, cpuUsPerEvent: { postgres: events > 0 ? Math.round(cpu.postgres / events) : null } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
