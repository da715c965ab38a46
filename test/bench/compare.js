#!/usr/bin/env node
/**
 * `npm run bench:compare -- --before DIR [--after DIR] [--only steady,images] [--rounds 4] [--seconds 6]
 *   [--before-env K=V,K=V] [--after-env K=V]`
 *
 * Interleaved A/B of two built checkouts (before: an older commit in a `git worktree`, built; after:
 * this one by default): both stacks run at once, each on a fresh database of DATABASE_URL's server
 * (required, with REDIS_URL if set), and the same load alternates between them, A B B A A B B A...
 * On a shared machine whose speed drifts from one minute to the next, separate bench runs of before
 * and after say little; alternating rounds make a slow minute hit both sides. Prints, per scenario,
 * throughput after/before, p50 and p99, CPU µs per event of every process and max RSS.
 * `--before-env` / `--after-env` add settings to one side's stack: the same checkout with and
 * without a feature (`--before DIR --after DIR --before-env COUNTS_INTERVAL_MS=0`) measures its cost.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEVICES, firstSightingBodies, imageBodies, steadyBody } from './bodies.js';
import { createDatabase, dropDatabase } from './database.js';
import { load } from './load.js';
import { gcPerThousand } from './gc.js';
import { combine, stackTarget } from './scenarios.js';
import { checkRoot, startStack } from './stack.js';

const { values: cli } = parseArgs({
  options: {
    before: { type: 'string' }, after: { type: 'string', default: fileURLToPath(new URL('../..', import.meta.url)) },
    only: { type: 'string', default: 'steady,sequential,first,images' }, 'before-env': { type: 'string' }, 'after-env': { type: 'string' }, rounds: { type: 'string', default: '4' }, seconds: { type: 'string', default: '6' },
  },
});
const server = process.env.DATABASE_URL;
if (!cli.before || !server) throw new Error('usage: DATABASE_URL=postgres://... npm run bench:compare -- --before DIR [--after DIR]');
const rounds = Number(cli.rounds);
const seconds = Number(cli.seconds);
const runId = `cmp${process.pid}`;
const images = imageBodies(runId);
/** Connections and bodies per scenario; first sightings get new names on every run (`from`). */
const SCENARIOS = {
  steady: { connections: 64, body: () => steadyBody },
  sequential: { connections: 1, body: () => steadyBody },
  first: { connections: 64, body: (side) => firstSightingBodies(`${runId}-${side.label}-`) },
  images: { connections: 16, body: () => images.body },
};

/** `K=V,K=V` as an object of settings. */
function settings(list) {
  const pairs = (list ?? '').split(',').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--before-env / --after-env: ${pair} is not K=V`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
  return Object.fromEntries(pairs);
}

async function startSide(label, root) {
  checkRoot(root);
  const name = `bench_compare_${label}_${process.pid}`;
  const url = await createDatabase(server, name);
  const stack = await startStack(root, { ...settings(cli[`${label}-env`]), DATABASE_URL: url }, label);
  const side = { label, root, name, stack, target: stackTarget(stack, true, {}), sent: 0 };
  // The 1,000 devices the steady bodies name, and a few seconds for JIT and pools.
  await load({ ...side.target, connections: 64, amount: DEVICES, body: steadyBody });
  await load({ ...side.target, connections: 64, seconds: 3, body: steadyBody, from: DEVICES });
  return side;
}

/** A side's rounds as one (scenarios.js's combine), keeping each round's p50. */
function summary(runs) {
  return { ...combine(runs), p50s: runs.map((r) => r.p50) };
}

async function compare(name, sides) {
  const { connections, body } = SCENARIOS[name];
  if (name === 'images') for (const side of sides) await load({ ...side.target, connections, seconds: 2, body: images.body, from: 1e9 });
  const runs = [[], []];
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[i];
      const r = await load({ ...side.target, connections, seconds, body: body(side), from: side.sent + 1e7 });
      side.sent += r.sent;
      runs[i].push(r);
      console.error(`compare: ${name} ${side.label}: ${r.rps.toFixed(0)}/s, p99 ${r.p99} ms, failed ${r.failed}`);
    }
  }
  const [before, after] = runs.map(summary);
  return { name, before, after, ratio: after.rps / before.rps };
}

const sides = [];
try {
  sides.push(await startSide('before', resolve(cli.before)), await startSide('after', resolve(cli.after)));
  const results = [];
  for (const name of cli.only.split(',')) {
    if (!SCENARIOS[name]) throw new Error(`--only: unknown scenario ${name} (known: ${Object.keys(SCENARIOS).join(', ')})`);
    results.push(await compare(name, sides));
  }
  const env = (label) => (cli[`${label}-env`] ? ` (${cli[`${label}-env`]})` : '');
  console.log(`\nbefore ${resolve(cli.before)}${env('before')}, after ${resolve(cli.after)}${env('after')}; ${rounds} rounds x ${seconds} s alternated per scenario`);
  for (const { name, before, after, ratio } of results) {
    console.log(`\n${name}: after/before ${ratio.toFixed(3)} (${before.rps.toFixed(0)} -> ${after.rps.toFixed(0)}/s), failed ${before.failed} / ${after.failed}`);
    for (const [label, s] of [['before', before], ['after', after]]) {
      console.log(`  ${label.padEnd(6)} p50 per round ${s.p50s.join(', ')} ms; p99 ${s.p99} ms; CPU us/event ${JSON.stringify(s.cpuUsPerEvent)}; max RSS MiB ${JSON.stringify(s.maxRssMiB, (_k, v) => (typeof v === 'number' ? Math.round(v) : v))}`);
      console.log(`         per 1,000 events, major GCs and GC pause ms ${JSON.stringify(gcPerThousand(s.gc, s.ok))}`);
    }
  }
} finally {
  for (const side of sides) {
    await side.stack.stop();
    await dropDatabase(server, side.name);
  }
}
