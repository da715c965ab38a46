#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [-- --root DIR]`: POST /dynamic-events through the whole stack, started
 * as `npm start` starts it (embedded defaults, or DATABASE_URL / REDIS_URL / S3_* when set: then each
 * run gets a fresh database on that server). Every figure is a ratio to a node:http JSON echo measured
 * in the same run with the same load tool, because the machine is shared and absolute numbers drift.
 * Per scenario it prints CPU µs per event of each process. --root benches another checkout (an older
 * commit in a git worktree, built) with this bench. --quick: a smoke test, no goals checked.
 * --no-scale skips the 10 M-event scenario (its database is seeded once, which takes minutes).
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { createImageBodies, eventBody } from './bodies.js';
import { cpuDelta, rssMiB, snapshot, stackProcesses } from './processes.js';
import { eventCount, seed, SCALE_EVENTS } from './seed.js';
import { database, freePort, startStack } from './stack.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const root = args.includes('--root') ? args[args.indexOf('--root') + 1] : join(here, '..', '..');
const seconds = quick ? 2 : Number(process.env.BENCH_SECONDS ?? 10);
const serverUrl = process.env.DATABASE_URL;
const log = (line) => console.error(`bench: ${line}`);

/** Runs autocannon; returns rate, latency, failures and CPU µs per 2xx for each process role. */
async function load(url, { connections, makeBody, roles, sampleRss }) {
  let n = 0;
  const before = snapshot(roles);
  const tool = process.cpuUsage();
  const rss = {};
  const sampler = setInterval(() => {
    for (const [role, pids] of Object.entries(roles())) if (role !== 'postgres') rss[role] = Math.max(rss[role] ?? 0, ...pids.map(rssMiB));
  }, 500);
  const statuses = {};
  const result = await autocannon({
    url, method: 'POST', connections, duration: seconds, headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: makeBody(n++) }), onResponse: (status) => { statuses[status] = (statuses[status] ?? 0) + 1; } }],
  });
  clearInterval(sampler);
  const cpu = cpuDelta(before, snapshot(roles));
  const used = process.cpuUsage(tool);
  cpu.load = used.user + used.system;
  const ok = result['2xx'];
  const perEvent = Object.fromEntries(Object.entries(cpu).map(([role, us]) => [role, ok > 0 ? us / ok : 0]));
  const failed = result.non2xx + result.errors + result.timeouts;
  return { rps: ok / result.duration, ok, p50: result.latency.p50, p99: result.latency.p99, failed, statuses, cpu: perEvent, rss: sampleRss ? rss : undefined };
}

async function echo(body, connections) {
  const port = await freePort();
  const server = fork(join(here, 'baseline-server.js'), [String(port)], { stdio: 'inherit' });
  await new Promise((r) => server.once('message', r));
  try {
    return await load(`http://127.0.0.1:${port}/`, { connections, makeBody: body, roles: () => ({ echo: [server.pid] }) });
  } finally {
    server.kill('SIGTERM');
  }
}

/** Starts a stack on `db` (a database URL or undefined for embedded) and runs `scenarios` on it. */
async function withStack(dbUrl, scenarios) {
  const stack = await startStack(root, dbUrl ? { DATABASE_URL: dbUrl } : {});
  const roles = () => stackProcesses(stack.pid, Boolean(serverUrl));
  try {
    return await scenarios(stack.url, roles);
  } finally {
    await stack.stop();
  }
}

const steadyBody = (i) => eventBody(`bench-dev-${i % 1000}`);
const images = createImageBodies();
const results = [];
const add = (name, run, base, goal) => results.push({ name, ...run, ratio: run.rps / base.rps, base, goal });

log(`root ${root}; ${serverUrl ? 'PostgreSQL from DATABASE_URL' : 'embedded Postgres'}; ${seconds} s per scenario`);
const echoSmall = await echo(steadyBody, 64);
const echoOne = await echo(steadyBody, 1);
const echoImage = await echo(images.body, 16);
const db = serverUrl ? await database(serverUrl, `bench_${process.pid}`) : undefined;
const runId = Date.now().toString(36);
let steady;
try {
  await withStack(db?.url, async (url, roles) => {
    const warm = { connections: 64, roles, makeBody: steadyBody };
    await load(url, { ...warm }); // first sightings of the 1,000 devices, JIT, pools
    steady = await load(url, { ...warm, sampleRss: true });
    add('steady state, 64 connections, 1,000 devices', steady, echoSmall, (r) => r.ratio >= 0.18 && r.p99 <= 50);
    add('one connection, sequential (p50 is the figure)', await load(url, { ...warm, connections: 1 }), echoOne);
    const prefix = `bench-new-${runId}-`;
    const first = await load(url, { connections: 64, roles, makeBody: (i) => eventBody(`${prefix}${i}`, `obj-${i}`) });
    first.duplicates = db ? await duplicates(db.url, prefix, first.ok, 64) : 'not checked (embedded)';
    add('first sightings (new device and object each call)', first, echoSmall, (r) => r.ratio >= 0.12 && r.failed === 0 && r.duplicates === 0);
    add(`images (${(images.imageBytes / 1024).toFixed(0)} KiB PNG, unique), 16 connections`, await load(url, { connections: 16, roles, makeBody: images.body, sampleRss: true }), echoImage, (r) => r.ratio >= 0.3);
  });
  if (serverUrl && !quick && !args.includes('--no-scale')) {
    const scaleDb = await database(serverUrl, 'bench_scale_10m', { fresh: false });
    if ((await eventCount(scaleDb.url)) < SCALE_EVENTS) {
      log(`seeding ${SCALE_EVENTS.toLocaleString()} events into bench_scale_10m (kept for later runs)`);
      await withStack(scaleDb.url, async () => {}); // applies the migrations
      const began = Date.now();
      await seed(scaleDb.url, log);
      log(`seeded in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    }
    await withStack(scaleDb.url, async (url, roles) => {
      await load(url, { connections: 64, roles, makeBody: steadyBody });
      add(`scale: steady state on ${(await eventCount(scaleDb.url)).toLocaleString()} events (ratio to steady)`, await load(url, { connections: 64, roles, makeBody: steadyBody }), steady, (r) => r.ratio >= 0.9);
    });
  } else if (!quick) log(serverUrl ? 'scale scenario skipped (--no-scale)' : 'scale scenario skipped: it needs DATABASE_URL (a server to keep the 10 M-event database on)');
} finally {
  await db?.drop();
}

/**
 * Anomalies among the rows stored under `prefix`: every call named a new device and object, so
 * events, devices and objects must be equal in number, at least the 2xx answers counted (a lost
 * event), and at most those plus the requests still in flight when the load stopped.
 */
async function duplicates(url, prefix, answered, inFlight) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT (SELECT count(*) FROM events WHERE device_name LIKE $1) AS events, (SELECT count(*) FROM devices WHERE device_name LIKE $1) AS devices,
              (SELECT count(*) FROM objects WHERE device_name LIKE $1) AS objects`,
      [`${prefix}%`],
    );
    const [events, devices, objects] = [rows[0].events, rows[0].devices, rows[0].objects].map(Number);
    return Math.abs(events - devices) + Math.abs(events - objects) + Math.max(0, answered - events) + Math.max(0, events - answered - inFlight);
  } finally {
    await client.end();
  }
}

const roles = ['load', 'gateway', 'registry', 'media', 'postgres'];
const pad = (v, n) => String(v).padStart(n);
console.log(`\nPOST /dynamic-events, ${seconds} s per scenario; echo: node:http JSON echo, same bodies and connections\n`);
console.log(`${'scenario'.padEnd(62)}${pad('ev/s', 8)}${pad('echo/s', 8)}${pad('ratio', 7)}${pad('p50', 6)}${pad('p99', 6)}${pad('failed', 7)}  goal`);
for (const r of results) {
  const verdict = quick || !r.goal ? '' : r.goal(r) ? 'PASS' : 'MISS';
  console.log(`${r.name.padEnd(62)}${pad(r.rps.toFixed(0), 8)}${pad(r.base.rps.toFixed(0), 8)}${pad(r.ratio.toFixed(3), 7)}${pad(r.p50, 6)}${pad(r.p99, 6)}${pad(r.failed, 7)}  ${verdict}${r.duplicates !== undefined ? ` (duplicates/losses: ${r.duplicates})` : ''}`);
  if (r.failed > 0) console.log(`  statuses: ${JSON.stringify(r.statuses)}`);
}
console.log(`\nCPU µs per event${''.padEnd(46)}${roles.map((x) => pad(x, 9)).join('')}${pad('total', 9)}`);
for (const r of [{ name: 'echo, 64 connections (echo server under gateway)', cpu: { load: echoSmall.cpu.load, gateway: echoSmall.cpu.echo } }, ...results]) {
  const total = roles.reduce((s, x) => s + (r.cpu[x] ?? 0), 0);
  console.log(`${r.name.padEnd(62)}${roles.map((x) => pad((r.cpu[x] ?? 0).toFixed(0), 9)).join('')}${pad(total.toFixed(0), 9)}`);
}
const rss = results.filter((r) => r.rss).map((r) => `${r.name.split(',')[0]}: ${Object.entries(r.rss).map(([k, v]) => `${k} ${v.toFixed(0)} MiB`).join(', ')}`);
console.log(`\nmax RSS per service (goal ≤ 200 MiB each): ${rss.join('; ')}`);
const failed = results.some((r) => r.failed > 0 || (typeof r.duplicates === 'number' && r.duplicates > 0));
if (quick && failed) process.exit(1);
if (args.includes('--check') && results.some((r) => r.goal && !r.goal(r))) process.exit(1);

