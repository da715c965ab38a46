// The scenarios, each measured in rounds alternating with its echo baseline (same bodies, same
// connections), so the ratio compares runs interleaved on a machine whose speed drifts.
import { BATCH_EVENTS, batchBody, DEVICES, firstSightingBodies, steadyBody } from './bodies.js';
import { countDevices, firstSightingRows } from './database.js';
import { stackGcReader, sumGc } from './gc.js';
import { load } from './load.js';
import { pgbenchLimit } from './pgbench.js';
import { postgresPids } from './processes.js';
import { webhookGoalsMet } from './webhook-goals.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The goals; every one also asks for 0 failed requests (a 503 or a timeout is not a served event). */
export const GOALS = {
  steady: { text: '>= 0.25 x echo, p99 <= 20 ms', pass: (r) => r.ratio >= 0.25 && r.p99 <= 20 },
  sequential: { text: 'p50 reported (no threshold)', pass: () => null },
  batch: {
    text: '>= 4 x steady events/s, >= 0.5 x pgbench, 0 refused events',
    pass: (r) => r.ratio >= 4 && r.refusedEvents === 0 && (r.pgbench === undefined || r.rps >= 0.5 * r.pgbench.rps),
  },
  first: { text: '>= 0.12 x echo, 0 duplicates/losses', pass: (r) => r.ratio >= 0.12 && r.check.anomalies === 0 },
  images: { text: '>= 0.30 x echo', pass: (r) => r.ratio >= 0.3 },
  scale: { text: '>= 0.9 x steady', pass: (r) => r.ratio >= 0.9 },
  watch: {
    text: '>= 0.9 x without, 200->watcher p99 <= 1 s, p50 <= 100 ms',
    pass: (r) => r.ratio >= 0.9 && r.watch.p99 <= 1000 && r.watch.p50 <= 100 && r.watch.missing === 0,
  },
  auth: { text: '>= 0.95 x without auth', pass: (r) => r.ratio >= 0.95 },
  webhooks: { text: 'webhook-goals.js: drain, latency, isolation', pass: (r) => webhookGoalsMet(r) },
  list: { text: 'p99 <= 20 ms', pass: (r) => r.p99 <= 20 },
  listAlone: { text: 'p50/p99 reported (no threshold)', pass: () => null },
  // The issue's own figure: ListEvents (gRPC) for one device's latest 100 on 10 M events.
  listGrpc: { text: 'p99 <= 20 ms', pass: (r) => r.p99 <= 20 },
};

/** PASS, MISS or INFO (no threshold) for a measured scenario. */
export function verdict(name, r) {
  if (r.failed > 0) return 'MISS';
  const pass = GOALS[name].pass(r);
  return pass === null ? 'INFO' : pass ? 'PASS' : 'MISS';
}

/** Per-stack load settings: CPU roles (services and Postgres) and the pids whose RSS is sampled. */
export function stackTarget(stack, sharedPostgres, headers) {
  const { gateway, registry, media, delivery } = stack.services;
  // A checkout whose launcher has no delivery process (an older commit under bench:compare) has no such role.
  const sender = delivery === undefined ? {} : { delivery: [delivery] };
  const roles = () => ({ gateway: [gateway], registry: [registry], media: [media], ...sender, postgres: postgresPids(registry, sharedPostgres) });
  return { url: stack.url, headers, roles, rss: { gateway, registry, media, ...(delivery === undefined ? {} : { delivery }) }, gc: stackGcReader(stack.metricsUrls) };
}

export function echoTarget(echo, headers) {
  return { url: echo.url, headers, roles: () => ({ echo: [echo.pid] }), gc: echo.gc };
}

/**
 * Creates the 1,000 devices and objects the steady bodies use (a pass of exactly 1,000 requests,
 * repeated until all answer 2xx), then, in full mode, a few seconds more for JIT and pools.
 */
export async function warmUp(ctx, target, dbUrl) {
  const base = { url: target.url, headers: target.headers, connections: 64, body: steadyBody, roles: target.roles };
  for (let attempt = 1; ; attempt++) {
    const pass = await load({ ...base, amount: DEVICES });
    const stored = dbUrl ? await countDevices(dbUrl, 'bench-dev-') : undefined;
    const complete = stored ? stored.devices === DEVICES && stored.objects === DEVICES : pass.ok === DEVICES;
    if (complete) break;
    const seen = stored ? `${stored.devices} devices, ${stored.objects} objects stored` : `${pass.ok} answered 2xx`;
    if (attempt === 3) throw new Error(`warm-up: ${seen} of ${DEVICES}; failures: ${JSON.stringify(pass.failures)}`);
    ctx.log(`warm-up incomplete (${seen}); again`);
  }
  if (!ctx.quick) await load({ ...base, seconds: Math.min(5, ctx.seconds) });
}

/**
 * The echo with `echoBody` and the stack with `body`, alternated in rounds (echo, stack, stack,
 * echo: two rounds of half the time each in full mode, one in quick mode), so a slow minute on a
 * shared machine slows both sides instead of deciding the ratio. Each side's request counter runs
 * on across its rounds (first sightings stay new). The result carries both and the ratio.
 */
async function paired(ctx, target, { connections, body, echoBody = body, ...extra }) {
  const rounds = ctx.quick ? 1 : 2;
  const sides = {
    echo: { runs: [], sent: 0, seconds: Math.max(1, Math.round(ctx.echoSeconds / rounds)), settings: { ...echoTarget(ctx.echo, target.headers), body: echoBody } },
    stack: { runs: [], sent: 0, seconds: Math.max(1, Math.round(ctx.seconds / rounds)), settings: { ...target, body, rss: extra.rss ? target.rss : undefined, ids: extra.ids } },
  };
  const measure = async (side) => {
    const r = await load({ ...side.settings, connections, seconds: side.seconds, from: side.sent });
    side.sent += r.sent;
    side.runs.push(r);
  };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [sides.echo, sides.stack] : [sides.stack, sides.echo];
    for (const side of order) await measure(side);
  }
  const echo = combine(sides.echo.runs);
  const run = combine(sides.stack.runs);
  if (extra.ids) run.ids = sides.stack.runs.flatMap((r) => r.ids);
  return { ...run, base: echo, ratio: run.rps / echo.rps };
}

export const steady = (ctx, target) => paired(ctx, target, { connections: 64, body: steadyBody, rss: true });

export const sequential = (ctx, target) => paired(ctx, target, { connections: 1, body: steadyBody });

/**
 * Batches of 100 known-device events at 16 connections against `steady` (single POSTs at 64),
 * alternated in rounds (steady, batch, batch, steady) in one run. Rates, CPU and GC are per event:
 * an answered batch carries 100; its refused events are counted apart (the goal wants none). The
 * ratio is the batch's events per second over steady's. With `dbUrl` (a server of its own, not the
 * embedded one), pgbench then writes the same rows into the same database for as long (pgbench.js):
 * what PostgreSQL itself sustains, beside which the batch's rate is judged too.
 */
export async function batch(ctx, target, dbUrl) {
  const rounds = ctx.quick ? 1 : 2;
  const seconds = Math.max(1, Math.round(ctx.seconds / rounds));
  const steadyRuns = [];
  const batchRuns = [];
  let sent = 0;
  const runSteady = async () => steadyRuns.push(await load({ ...target, connections: 64, seconds, body: steadyBody }));
  const runBatch = async () => {
    const r = await load({ ...target, url: `${target.url}/batch`, connections: 16, seconds, body: batchBody, from: sent, rss: target.rss, refused: true });
    sent += r.sent;
    batchRuns.push(r);
  };
  for (let round = 0; round < rounds; round++) for (const step of round % 2 === 0 ? [runSteady, runBatch] : [runBatch, runSteady]) await step();
  const base = combine(steadyRuns);
  const requests = combine(batchRuns);
  const events = requests.ok * BATCH_EVENTS;
  const cpuUsPerEvent = Object.fromEntries(Object.entries(requests.cpuUs).map(([role, us]) => [role, events > 0 ? Math.round(us / events) : null]));
  const refusedEvents = batchRuns.reduce((total, r) => total + r.refusedEvents, 0);
  const pgbench = dbUrl ? await pgbenchLimit({ dbUrl, clients: 16, seconds: seconds * rounds, roles: target.roles }) : undefined;
  const rps = events / requests.seconds;
  return { ...requests, ok: events, rps, cpuUsPerEvent, refusedEvents, batchesPerSecond: requests.rps, base, ratio: rps / base.rps, pgbench, ofPgbench: pgbench && rps / pgbench.rps };
}

/**
 * New device and object in every call; then the answers against what was stored: ids unique,
 * every 2xx stored once, one event per device, no rows beyond the requests left unanswered at stop.
 */
export async function first(ctx, target, dbUrl) {
  const prefix = `bench-first-${ctx.runId}-`;
  const r = await paired(ctx, target, { connections: 64, body: firstSightingBodies(prefix), echoBody: firstSightingBodies('bench-echo-'), ids: true });
  const distinct = new Set(r.ids.filter(Boolean));
  const check = { answered2xx: r.ok, unansweredAtStop: r.unanswered, distinctIds: distinct.size, unparsedIds: r.ids.length - r.ids.filter(Boolean).length };
  check.duplicateIds = r.ids.length - check.unparsedIds - distinct.size;
  check.anomalies = check.duplicateIds + check.unparsedIds;
  if (dbUrl) {
    await sleep(1000); // let requests cut off at the end of the load finish or be dropped
    const rows = await firstSightingRows(dbUrl, prefix, [...distinct]);
    Object.assign(check, rows);
    check.duplicateEvents = rows.events - rows.event_devices;
    check.lost = distinct.size - rows.answered_found;
    check.unexplained = Math.abs(rows.devices - rows.objects) + Math.abs(rows.devices - rows.event_devices) + Math.max(0, rows.events - r.ok - r.unanswered);
    check.anomalies += check.duplicateEvents + check.lost + check.unexplained;
  }
  delete r.ids;
  return { ...r, check };
}

/**
 * Posts one image body and reads the stored image back: the stack must accept the PNG (200) and
 * serve the same bytes; otherwise the images scenario would measure rejections.
 */
export async function checkImage(target, images, base) {
  const res = await fetch(target.url, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: images.body(-1) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`the bench PNG was refused: ${res.status} ${text.slice(0, 300)}`);
  const stored = JSON.parse(text).images.at(-1);
  const got = await fetch(new URL(new URL(stored).pathname, base)).then((r) => r.arrayBuffer());
  if (!Buffer.from(got).equals(images.png(-1))) throw new Error(`the image read back from ${stored} differs from the one sent`);
  return stored;
}

/** Unique PNGs; in full mode after 2 s of image load (counters far from the measured ones) to warm the image path. */
export async function imagesScenario(ctx, target, images) {
  if (!ctx.quick) await load({ ...target, connections: 16, seconds: 2, body: images.body, from: 1e9 });
  return paired(ctx, target, { connections: 16, body: images.body, rss: true });
}

/** Several load runs of one target as one: sums, the median round's p50, the worst p99, the largest RSS. */
export function combine(runs) {
  const sum = (key) => runs.reduce((total, r) => total + r[key], 0);
  const roles = Object.keys(runs[0].cpuUs);
  const cpuUs = Object.fromEntries(roles.map((role) => [role, runs.reduce((total, r) => total + (r.cpuUs[role] ?? 0), 0)]));
  const ok = sum('ok');
  const p50s = runs.map((r) => r.p50).sort((a, b) => a - b);
  const rss = runs.map((r) => r.maxRssMiB).filter(Boolean);
  return {
    ...runs[0],
    seconds: sum('seconds'), ok, rps: ok / sum('seconds'), failed: sum('failed'), non2xx: sum('non2xx'), errors: sum('errors'), timeouts: sum('timeouts'),
    sent: sum('sent'), unanswered: sum('unanswered'), p50: p50s[Math.floor(p50s.length / 2)], p99: Math.max(...runs.map((r) => r.p99)),
    failures: runs.flatMap((r) => r.failures).slice(0, 5), cpuUs, cpuUsPerEvent: Object.fromEntries(roles.map((role) => [role, ok > 0 ? Math.round(cpuUs[role] / ok) : null])),
    gc: sumGc(runs.map((r) => r.gc)),
    maxRssMiB: rss.length > 0 ? Object.fromEntries(Object.keys(rss[0]).map((role) => [role, Math.max(...rss.map((m) => m[role] ?? 0))])) : undefined,
  };
}

/**
 * The steady load on the stack whose database holds 10 M events, against the same load on the
 * empty-database stack, alternated in rounds (empty, 10 M, empty, 10 M...): on a shared machine a
 * slow minute then slows both sides alike instead of deciding the ratio. The ratio is of the 2xx
 * of all rounds; the empty side's figures are in `base`.
 */
export async function scale(ctx, emptyTarget, scaleTarget) {
  const rounds = ctx.quick ? 1 : 3;
  const seconds = Math.max(2, Math.ceil(ctx.seconds / 2));
  const empty = [];
  const full = [];
  for (let round = 0; round < rounds; round++) {
    empty.push(await load({ ...emptyTarget, connections: 64, seconds, body: steadyBody }));
    full.push(await load({ ...scaleTarget, connections: 64, seconds, body: steadyBody, rss: scaleTarget.rss }));
  }
  const run = combine(full);
  const base = combine(empty);
  return { ...run, rounds: full.map((r, i) => Math.round((100 * r.rps) / empty[i].rps) / 100), base, ratio: run.rps / base.rps };
}
