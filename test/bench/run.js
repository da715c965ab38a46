#!/usr/bin/env node
/**
 * `npm run bench [-- --quick] [-- --root DIR] [-- --only steady,images] [-- --json FILE] [-- --check]`
 *
 * POST /dynamic-events through the whole stack, started as `npm start` starts it, against a node:http
 * JSON echo alternated with it in rounds, with the same load tool, bodies and connections: the machine is
 * small and shared, so ratios say more than absolute figures. With DATABASE_URL the stack runs on
 * a fresh database of that server (dropped at the end), and the scale scenario on a cached
 * 10 M-event database; without it, on the embedded defaults (no scale scenario).
 * --root benches another built checkout (an older commit in a git worktree) with this bench code.
 * --quick: ≈2 s per scenario, no scale, no goals; exit 1 only on start-up failure, failed requests
 * or duplicates. Full mode: BENCH_SECONDS (default 10) per scenario; prints PASS/MISS per goal and
 * exits 0 unless --check is given and a goal is missed.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkpoint, createDatabase, databaseUrl, dropDatabase, scaleDatabaseState, SCALE_DB, SCALE_EVENTS } from './database.js';
import { describeImage, imageBodies } from './bodies.js';
import { memory, printReport, writeJson } from './report.js';
import * as scenarios from './scenarios.js';
import { seedScale } from './seed.js';
import { checkRoot, startEcho, startStack } from './stack.js';
import { listScenario, watchScenario } from './watch.js';
import { authScenario, BENCH_ADMIN_TOKEN } from './auth.js';
import { listGrpcScenario } from './list-grpc.js';
import { webhooksScenario } from './webhooks.js';

const ALL = ['steady', 'batch', 'sequential', 'first', 'images', 'watch', 'auth', 'webhooks', 'scale', 'list'];
const log = (line) => console.error(`bench: ${line}`);

const { values: cli } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false }, check: { type: 'boolean', default: false }, 'no-scale': { type: 'boolean', default: false },
    root: { type: 'string', default: fileURLToPath(new URL('../..', import.meta.url)) }, only: { type: 'string' }, json: { type: 'string' },
  },
});
const root = resolve(cli.root);
const serverUrl = process.env.DATABASE_URL || undefined;
const seconds = cli.quick ? 2 : Number(process.env.BENCH_SECONDS ?? 10);
if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS must be a whole number of seconds >= 1, not ${process.env.BENCH_SECONDS}`);
const selected = new Set(cli.only ? cli.only.split(',').map((s) => s.trim().replace(/^first-sightings$/, 'first')) : ALL);
for (const name of selected) if (!ALL.includes(name)) throw new Error(`--only: unknown scenario ${name} (known: ${ALL.join(', ')})`);

const token = process.env.DYNAMIC_EVENTS_TOKEN;
const ctx = { quick: cli.quick, seconds, echoSeconds: cli.quick ? 1 : seconds, runId: `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`, log };
const headers = token ? { authorization: `Bearer ${token}` } : {};
const report = {
  meta: { root, commit: commitOf(root), date: new Date().toISOString(), backend: serverUrl ? `PostgreSQL at ${new URL(serverUrl).host}` : 'embedded defaults', quick: cli.quick, seconds, echoSeconds: ctx.echoSeconds },
  scenarios: {},
  skipped: {},
};

/** Cleanup steps (stop stacks and echo, drop the run's database), run in reverse, also on Ctrl-C. */
const cleanups = [];
async function cleanup() {
  while (cleanups.length > 0) await cleanups.pop()().catch((err) => log(`cleanup: ${err.message}`));
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanup().then(() => process.exit(130)));

/** The checkout's commit, marked when its tracked files differ from it (undefined outside git). */
function commitOf(dir) {
  try {
    const git = (...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' + uncommitted changes' : ''}`;
  } catch {
    return undefined;
  }
}

/** Reuses bench_scale_10m when it matches the checkout, else re-creates, migrates (a stack start) and seeds it. */
async function prepareScaleDatabase() {
  const state = await scaleDatabaseState(serverUrl, root);
  if (state.reusable) {
    log(`reusing ${SCALE_DB} (${state.events.toLocaleString('en')} events)`);
    return { reused: true, events: state.events };
  }
  log(`(re-)creating ${SCALE_DB}: ${state.why}; seeding ${SCALE_EVENTS.toLocaleString('en')} events takes minutes`);
  const url = await createDatabase(serverUrl, SCALE_DB);
  const migrate = await startStack(root, { DATABASE_URL: url }, 'migrating');
  await migrate.stop();
  const seedSeconds = await seedScale(url, log);
  log(`seeded ${SCALE_DB} in ${seedSeconds.toFixed(0)} s`);
  return { reused: false, seedSeconds: Math.round(seedSeconds) };
}

/** Starts a stack on `dbUrl` (undefined: embedded) and returns its load target; stopped by cleanup. */
async function stackOn(dbUrl, name) {
  // ADMIN_TOKEN only opens the admin API (the auth and webhooks scenarios use it); the instance stays
  // open until a token exists. The webhooks scenario's receivers listen on 127.0.0.1.
  const env = { ...(dbUrl ? { DATABASE_URL: dbUrl } : {}), ADMIN_TOKEN: BENCH_ADMIN_TOKEN, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
  const stack = await startStack(root, env, name);
  cleanups.push(stack.stop);
  const missing = ['gateway', 'registry', 'media'].filter((role) => !stack.services[role]);
  if (missing.length > 0) log(`WARNING: ${missing.join(', ')} not found among the launcher's children: no CPU or RSS figures for them`);
  return { stack, target: scenarios.stackTarget(stack, Boolean(serverUrl), headers) };
}

function progress(name, r) {
  const base = r.base ? ` (base ${r.base.rps.toFixed(0)}/s, ratio ${r.ratio.toFixed(3)})` : '';
  log(`${name}: ${r.rps.toFixed(0)} 2xx/s${base}, p50 ${r.p50} ms, p99 ${r.p99} ms, failed ${r.failed}`);
}

/**
 * Steady, sequential, first sightings and images on one stack over an empty database. Returns its
 * load target when the scale scenario needs it (the stack then stops with the cleanups).
 */
async function emptyDatabaseScenarios(images) {
  const dbName = `bench_${process.pid}`;
  const dbUrl = serverUrl ? await createDatabase(serverUrl, dbName) : undefined;
  if (dbUrl) cleanups.push(() => dropDatabase(serverUrl, dbName));
  const { stack, target } = await stackOn(dbUrl, 'empty-database');
  if (images) report.meta.image.accepted = await scenarios.checkImage(target, images, stack.base);
  await scenarios.warmUp(ctx, target, dbUrl);
  const run = async (name, fn) => {
    if (!selected.has(name)) return;
    report.scenarios[name] = await fn();
    progress(name, report.scenarios[name]);
  };
  await run('steady', () => scenarios.steady(ctx, target));
  await run('batch', () => scenarios.batch(ctx, target, dbUrl));
  await run('sequential', () => scenarios.sequential(ctx, target));
  await run('first', () => scenarios.first(ctx, target, dbUrl));
  await run('images', () => scenarios.imagesScenario(ctx, target, images));
  await run('watch', () => watchScenario(ctx, target));
  await run('auth', () => authScenario(ctx, stack, target));
  await run('webhooks', () => webhooksScenario(ctx, stack, target));
  if (selected.has('scale') || selected.has('list')) return target;
  await stack.stop();
  return undefined;
}

async function main() {
  checkRoot(root);
  for (const name of ['scale', 'list'].filter((n) => selected.has(n))) {
    const why = cli.quick ? '--quick' : cli['no-scale'] ? '--no-scale' : !serverUrl ? 'it needs DATABASE_URL (a server to keep the 10 M-event database on)' : undefined;
    if (why) {
      report.skipped[name] = why;
      selected.delete(name);
    }
  }
  const images = selected.has('images') ? imageBodies(ctx.runId) : undefined;
  if (images) report.meta.image = describeImage(images, log);
  if (selected.has('scale') || selected.has('list')) {
    report.meta.scaleDatabase = await prepareScaleDatabase();
    if (!report.meta.scaleDatabase.reused) {
      // Gigabytes were just written: flush them now rather than during the measurements.
      await checkpoint(serverUrl);
      execFileSync('sync');
    }
  }
  const echo = await startEcho();
  cleanups.push(echo.stop);
  ctx.echo = echo;
  log(`root ${root}; ${report.meta.backend}; ${seconds} s per scenario; scenarios: ${[...selected].join(', ')}`);
  const emptyTarget = await emptyDatabaseScenarios(images);
  if (emptyTarget) {
    const { stack, target } = await stackOn(databaseUrl(serverUrl, SCALE_DB), 'scale');
    await scenarios.warmUp(ctx, target, databaseUrl(serverUrl, SCALE_DB));
    if (selected.has('scale')) {
      report.scenarios.scale = await scenarios.scale(ctx, emptyTarget, target);
      progress('scale', report.scenarios.scale);
    }
    if (selected.has('list')) {
      report.scenarios.list = await listScenario(ctx, target);
      progress('list', report.scenarios.list);
      report.scenarios.listAlone = await listScenario(ctx, target, 1);
      progress('listAlone', report.scenarios.listAlone);
      report.scenarios.listGrpc = await listGrpcScenario(ctx, stack, target);
      progress('listGrpc', report.scenarios.listGrpc);
    }
    await stack.stop();
  }
}

let fatal;
try {
  await main();
} catch (err) {
  fatal = err;
} finally {
  await cleanup();
}
printReport(report);
if (cli.json) writeJson(cli.json, report);
if (fatal) {
  console.error(`\nbench: FAILED: ${fatal.stack ?? fatal}`);
  process.exit(1);
}
const results = Object.entries(report.scenarios);
const broken = results.some(([, r]) => r.failed > 0 || r.check?.anomalies > 0);
const missed = results.some(([name, r]) => scenarios.verdict(name, r) === 'MISS') || memory(report.scenarios).pass === false;
process.exit((cli.quick && broken) || (!cli.quick && cli.check && missed) ? 1 : 0);
