// The queue of webhook deliveries, head to head: the registry's commit log with a cursor per
// webhook against pg-boss, on the same PostgreSQL, each side on a fresh database of its
// own, for 20,000 changes × 1 webhook and 2,000 changes × 10 webhooks. Measures the queue, not HTTP:
//   1. ingest: the cost a queue adds to each event's write. Ours adds nothing there (fan-out reads
//      the commit log later, off the ingest path, and is measured as its own phase); pg-boss needs
//      the enqueue in the event's transaction (at least once), so its write is BEGIN, the same
//      statement, one insert of a job per webhook, COMMIT;
//   2. drain: deliveries (jobs) per second and CPU µs per delivery of the PostgreSQL backends and of
//      this process, claiming (fetching) and completing in batches of 32.
// Rounds alternate the sides (A B B A) so a machine that speeds up or slows down weighs on both.
// CPU of each side's backends comes from /proc (their pids, connections held open throughout);
// autovacuum, the WAL writer and checkpoints are not counted on either side.
//
//   node test/bench/queue-compare.js [--scale 0.1] [--json FILE]    (DATABASE_URL: a loopback server)
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { databaseUrl, withClient, withUser } from './database.js';
import { createOurs, createPgBoss, ingest, measure } from './queue-sides.js';

const { values: cli } = parseArgs({ options: { scale: { type: 'string', default: '1' }, 'drain-seconds': { type: 'string', default: '5' }, json: { type: 'string' } } });
const server = withUser(process.env.DATABASE_URL ?? 'postgres://127.0.0.1:5432/postgres');
if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(new URL(server).hostname)) throw new Error('queue-compare runs against a loopback PostgreSQL only');
const scale = Number(cli.scale);
const SCENARIOS = [
  { changes: Math.round(20_000 * scale), webhooks: 1 },
  { changes: Math.round(2_000 * scale), webhooks: 10 },
];
const ROUNDS = 4;
/**
 * Events per write statement: one (a call at a time) for a sample of the changes, 25 (what group
 * commit merges under load) for the rest; the drain sees all of them.
 */
const SHAPES = [
  { perStatement: 1, share: 0.05 },
  { perStatement: 25, share: 0.95 },
];
/** Each half of a drain is measured for at most this long, from the backlog it finds (20,000 deep at first). */
const DRAIN_SECONDS = Number(cli['drain-seconds']);
const WRITERS = 8;

async function freshDatabase(name) {
  await withClient(server, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  return { url: databaseUrl(server, name), drop: () => withClient(server, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/** Adds one measurement into a running total. */
const add = (total, m) => ({ count: total.count + m.count, ms: total.ms + m.ms, pgUs: total.pgUs + m.pgUs, nodeUs: total.nodeUs + m.nodeUs });
const ZERO = { count: 0, ms: 0, pgUs: 0, nodeUs: 0 };

async function runScenario({ changes, webhooks }) {
  const dbOurs = await freshDatabase('bench_queue_ours');
  const dbBoss = await freshDatabase('bench_queue_pgboss');
  const ours = await createOurs(dbOurs.url, webhooks, Math.max(WRITERS, webhooks));
  const boss = await createPgBoss(dbBoss.url, webhooks, Math.max(WRITERS, webhooks), ours.template);
  try {
    const sides = { ours, boss };
    const ingested = [];
    let offset = 0;
    for (const [k, { perStatement, share }] of SHAPES.entries()) {
      const events = k === SHAPES.length - 1 ? changes - offset : Math.round(changes * share);
      const totals = { ours: ZERO, boss: ZERO };
      const per = Math.ceil(events / ROUNDS);
      for (let round = 0; round < ROUNDS; round++) {
        const from = offset + round * per;
        const to = Math.min(offset + events, from + per);
        for (const side of round % 2 === 0 ? ['ours', 'boss'] : ['boss', 'ours']) {
          totals[side] = add(totals[side], await measure(sides[side].pids, () => ingest(from, to, WRITERS, perStatement, sides[side].write)));
        }
      }
      offset += events;
      ingested.push({ perStatement, ...totals });
    }
    const jobs = changes * webhooks;
    const fanOut = await measure(ours.pids, () => ours.fanOutAll());
    if (fanOut.count !== jobs) throw new Error(`fan-out created ${fanOut.count} deliveries, expected ${jobs}`);
    // Drained in halves, A B B A as the ingest rounds, each for at most DRAIN_SECONDS.
    const half = Math.ceil(changes / 2);
    const drained = { ours: ZERO, boss: ZERO };
    for (const side of ['ours', 'boss', 'boss', 'ours']) {
      const until = Date.now() + DRAIN_SECONDS * 1000;
      drained[side] = add(drained[side], await measure(sides[side].pids, () => sides[side].drain(half, until)));
    }
    for (const side of ['ours', 'boss']) if (drained[side].count === 0 || drained[side].count > jobs) throw new Error(`${side} drained ${drained[side].count} of ${jobs}`);
    return { changes, webhooks, bodyBytes: Buffer.byteLength(ours.template.body), ingested, fanOut, drained };
  } finally {
    await boss.boss.stop({ graceful: false, close: false, wait: true }).catch(() => undefined);
    await Promise.all([ours.pool.end(), boss.pool.end()]);
    await Promise.all([dbOurs.drop(), dbBoss.drop()]);
  }
}

const f = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function report(r) {
  const perEvent = (m) => ({ wall: (m.ms * 1000) / m.count, pg: m.pgUs / m.count, node: m.nodeUs / m.count });
  const jobs = r.changes * r.webhooks;
  console.log(`\n${f(r.changes)} changes × ${r.webhooks} webhook${r.webhooks > 1 ? 's' : ''} (${f(jobs)} deliveries, bodies of ${f(r.bodyBytes)} B)`);
  console.log(`| ingest, µs per event | elapsed (${WRITERS} writers) | PostgreSQL CPU | client CPU |`);
  console.log('|---|---|---|---|');
  let added = 0;
  for (const { perStatement, ours, boss } of r.ingested) {
    const [io, ib] = [perEvent(ours), perEvent(boss)];
    added += ((ib.pg - io.pg) * ours.count) / r.changes;
    const shape = `${perStatement} event${perStatement > 1 ? 's' : ''} per statement`;
    console.log(`| ${shape}: the write alone (ours) | ${f(io.wall, 1)} | ${f(io.pg, 1)} | ${f(io.node, 1)} |`);
    console.log(`| ${shape}: the write + its job${r.webhooks > 1 ? 's' : ''} in one transaction (pg-boss) | ${f(ib.wall, 1)} | ${f(ib.pg, 1)} | ${f(ib.node, 1)} |`);
    console.log(`| ${shape}: added per event per webhook | ${f((ib.wall - io.wall) / r.webhooks, 1)} | ${f((ib.pg - io.pg) / r.webhooks, 1)} | ${f((ib.node - io.node) / r.webhooks, 1)} |`);
  }
  const row = (label, m) => `| ${label} | ${f(m.count)} | ${f((m.count * 1000) / m.ms)} | ${f(m.pgUs / m.count, 1)} | ${f(m.nodeUs / m.count, 1)} |`;
  console.log('\n| per delivery | measured | deliveries/s | PostgreSQL CPU µs | client CPU µs |');
  console.log('|---|---|---|---|---|');
  console.log(row('fan-out from the commit log (ours, after ingest)', r.fanOut));
  console.log(row('claim + outcome (ours)', r.drained.ours));
  console.log(row('fetch + complete (pg-boss)', r.drained.boss));
  const total = (m, extra) => (m.pgUs + (extra?.pgUs ?? 0)) / jobs;
  console.log(`\nPostgreSQL CPU µs per delivery, enqueue to done: ours ${f(total(r.fanOut, r.drained.ours), 1)} (fan-out + drain), pg-boss ${f((added * r.changes) / jobs + total(r.drained.boss), 1)} (enqueue + drain)`);
}

const results = [];
for (const scenario of SCENARIOS) {
  const r = await runScenario(scenario);
  report(r);
  results.push(r);
}
if (cli.json) writeFileSync(cli.json, JSON.stringify(results, null, 2));
