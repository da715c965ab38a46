// Prints the run's figures as tables (throughput and latency with goals, CPU µs per event per
// process, GCs per event per process, max RSS per service) and writes them as JSON.
import { writeFileSync } from 'node:fs';
import { gcPerThousand } from './gc.js';
import { GOALS, verdict } from './scenarios.js';
import { webhookTables } from './webhook-goals.js';

const TITLES = {
  steady: 'steady, 1,000 devices',
  sequential: 'sequential, steady bodies',
  batch: 'batch: 100 steady events per POST (events)',
  first: 'first sightings',
  images: 'images, unique ~117 KiB PNG',
  scale: 'scale: steady on 10 M events',
  watch: 'steady + 10 SSE watchers',
  auth: 'steady, token required and sent',
  webhooks: 'steady + 10 webhooks (webhook-goals.js)',
  list: 'list: device latest 100, 10 M',
  listAlone: 'list, one connection, 10 M',
  listGrpc: 'ListEvents over gRPC, one caller, 10 M',
};
const RSS_GOAL_MIB = 200;
const CPU_COLUMNS = [['load', 'load tool'], ['gateway', 'echo/gateway'], ['registry', 'registry'], ['delivery', 'delivery'], ['media', 'media'], ['postgres', 'postgres']];

const num = (v, digits = 0) => (v === null || v === undefined || Number.isNaN(v) ? '-' : v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

/** Renders rows (arrays of cells) as a text table: numbers right-aligned, the `left` columns left-aligned. */
function table(header, rows, left = [0]) {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (left.includes(i) ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

function mainTable(scenarios, quick) {
  const rows = Object.entries(scenarios).map(([name, r]) => [
    TITLES[name], r.connections, num(r.rps), num(r.base?.rps), num(r.ratio, 3), num(r.p50, 2), num(r.p99, 2), num(r.base?.p50, 2), r.failed,
    GOALS[name].text, quick ? '-' : verdict(name, r),
  ]);
  return table(['scenario', 'conns', '2xx/s', 'base/s', 'ratio', 'p50 ms', 'p99 ms', 'base p50', 'failed', 'goal', 'result'], rows, [0, 9, 10]);
}

/** What a scenario's base run was (the echo, unless the scenario compares two stack runs). */
function baseTitle(name, r) {
  const own = {
    batch: 'steady (interleaved with batch)', scale: 'steady, empty database (interleaved)', watch: 'steady without watchers (interleaved)',
    auth: 'steady, no token required (interleaved)', webhooks: 'steady without webhooks (interleaved)',
  };
  return own[name] ?? `echo for ${name} (${r.connections} conns)`;
}

function cpuTable(scenarios) {
  const rows = [];
  const row = (title, cpu) => {
    const cells = CPU_COLUMNS.map(([key]) => cpu[key] ?? (key === 'gateway' ? cpu.echo : undefined));
    rows.push([title, ...cells.map((v) => num(v)), num(cells.reduce((sum, v) => sum + (v ?? 0), 0))]);
  };
  for (const [name, r] of Object.entries(scenarios)) {
    if (r.base) row(baseTitle(name, r), r.base.cpuUsPerEvent);
    row(TITLES[name], r.cpuUsPerEvent);
    if (r.pgbench) row(`pgbench: the batch's rows, ${r.pgbench.clients} conns`, r.pgbench.cpuUsPerEvent);
  }
  return table(['CPU us per 2xx event', ...CPU_COLUMNS.map(([, title]) => title), 'total'], rows);
}

/** Major GCs and GC pause ms per 1,000 events, per process: which runs a full-GC cycle slowed (gc.js). */
function gcTable(scenarios) {
  const rows = [];
  const cell = (per) => (per ? `${num(per.major, 1)} / ${num(per.pauseMs)}` : '-');
  const row = (title, r) => {
    const per = gcPerThousand(r.gc, r.ok) ?? {};
    rows.push([title, cell(per.echo ?? per.gateway), cell(per.registry), cell(per.media)]);
  };
  for (const [name, r] of Object.entries(scenarios)) {
    if (!r.gc) continue;
    if (r.base?.gc) row(baseTitle(name, r), r.base);
    row(TITLES[name], r);
  }
  return table(['per 1,000 events: major GCs / GC pause ms', 'echo/gateway', 'registry', 'media'], rows);
}

/** The scenarios the memory goal is about (the goal: "memory under the steady-state load"). */
const STEADY_LOAD = ['steady', 'scale'];

/** Max RSS per service over the given scenarios (all sampled ones by default). */
function maxRss(scenarios, names = Object.keys(scenarios)) {
  const max = {};
  for (const name of names) for (const [role, mib] of Object.entries(scenarios[name]?.maxRssMiB ?? {})) max[role] = Math.max(max[role] ?? 0, mib);
  return max;
}

/**
 * The memory goal: each service <= 200 MiB under the steady load. Images, watchers and lists are
 * sampled too and their peak is reported beside it (`allMiB`, and a row of its own), not hidden.
 */
export function memory(scenarios) {
  const max = maxRss(scenarios, STEADY_LOAD);
  const pass = Object.keys(max).length === 0 ? null : Object.values(max).every((mib) => mib <= RSS_GOAL_MIB);
  return { maxMiB: max, pass, allMiB: maxRss(scenarios) };
}

function memoryTable(scenarios, quick) {
  const sampled = Object.entries(scenarios).filter(([, r]) => r.maxRssMiB);
  // The webhook sender (a registry replica of its own under the launcher) where the stack has one.
  const roles = ['gateway', 'registry', 'media', ...(sampled.some(([, r]) => r.maxRssMiB.delivery !== undefined) ? ['delivery'] : [])];
  const rows = sampled.map(([name, r]) => [TITLES[name], ...roles.map((role) => num(r.maxRssMiB[role])), '']);
  const { pass, maxMiB, allMiB } = memory(scenarios);
  if (pass !== null) rows.push(['goal: each <= 200 MiB, steady load', ...roles.map((role) => num(maxMiB[role])), quick ? '-' : pass ? 'PASS' : 'MISS']);
  const over = roles.filter((role) => allMiB[role] > RSS_GOAL_MIB);
  if (sampled.length > 0) rows.push(['any scenario (reported)', ...roles.map((role) => num(allMiB[role])), over.length > 0 ? `${over.join(', ')} > 200` : 'INFO']);
  return table(['max RSS, MiB', ...roles, 'result'], rows, [0, roles.length + 1]);
}

/** Failures, first-sighting checks and skipped scenarios, as plain lines under the tables. */
function notes(report) {
  const lines = [];
  for (const [name, r] of Object.entries(report.scenarios)) {
    for (const run of [r, r.base]) {
      if (!run || run.failed === 0) continue;
      const who = run === r ? name : name === 'scale' ? 'steady, empty database (interleaved with scale)' : `echo for ${name}`;
      lines.push(`${who}: ${run.failed} failed (${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts); first distinct: ${JSON.stringify(run.failures)}`);
    }
  }
  const check = report.scenarios.first?.check;
  if (check) lines.push(`first sightings check: ${JSON.stringify(check)}`);
  const scaleDb = report.meta.scaleDatabase;
  if (scaleDb) lines.push(`scale database: ${scaleDb.reused ? `reused, ${scaleDb.events.toLocaleString('en')} events` : `created and seeded in ${scaleDb.seedSeconds} s`}`);
  if (report.scenarios.scale) lines.push(`scale rounds (10 M / empty, alternated): ${report.scenarios.scale.rounds.join(', ')}`);
  if (report.scenarios.watch?.rounds) lines.push(`watch rounds (ten watchers / none, alternated): ${report.scenarios.watch.rounds.join(', ')}`);
  if (report.scenarios.auth?.rounds) lines.push(`auth rounds (token required and sent / open, alternated): ${report.scenarios.auth.rounds.join(', ')}`);
  const watch = report.scenarios.watch?.watch;
  if (watch) lines.push(`watch: ${watch.watchers} watchers, ${watch.probes} probes, event 200 -> watcher p50 ${watch.p50} ms, p99 ${watch.p99} ms, ${watch.missing} (probe, watcher) pairs missing, ${watch.framesPerWatcher} frames per watcher`);
  for (const [name, why] of Object.entries(report.skipped)) lines.push(`${name}: skipped, ${why}`);
  return lines;
}

/** Prints the whole report on stdout. */
export function printReport(report) {
  const { meta, scenarios } = report;
  console.log(`\nPOST /dynamic-events: ${meta.root}${meta.commit ? ` (${meta.commit})` : ''}; ${meta.backend}; ${meta.seconds} s per scenario (echo ${meta.echoSeconds} s)`);
  console.log('base = node:http JSON echo with the same bodies and connections, alternated with the stack in rounds (scale: steady on the empty database, alternated likewise);');
  console.log(`every goal also needs 0 failed requests${meta.quick ? '; --quick: no performance goals, only failures and duplicates' : ''}\n`);
  if (Object.keys(scenarios).length > 0) {
    console.log(mainTable(scenarios, meta.quick));
    const { pgbench, ofPgbench } = scenarios.batch ?? {};
    if (pgbench) console.log(`batch against pgbench writing the same rows on the same server: ${num(pgbench.rps)} events/s (${num(pgbench.statementsPerSecond)} statements/s, ${pgbench.failed} failed); batch ${num(ofPgbench, 3)} x of it`);
    console.log(`\n${cpuTable(scenarios)}`);
    if (Object.values(scenarios).some((r) => r.gc)) console.log(`\n${gcTable(scenarios)}`);
    if (Object.values(scenarios).some((r) => r.maxRssMiB)) console.log(`\n${memoryTable(scenarios, meta.quick)}`);
    if (scenarios.webhooks) console.log(`\n${webhookTables(scenarios.webhooks, meta.quick, table)}`);
  }
  const extra = notes(report);
  if (extra.length > 0) console.log(`\n${extra.join('\n')}`);
}

/** All figures, for comparing runs (a before and an after) by program. */
export function writeJson(file, report) {
  writeFileSync(file, `${JSON.stringify({ ...report, memory: memory(report.scenarios) }, null, 2)}\n`);
}
