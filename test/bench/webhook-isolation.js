// (c) Saturating steady ingest with ten webhooks matching every event against none, alternated in
// rounds with the order flipped each round (as the watch and auth scenarios do). After each round
// with webhooks the deliveries catch up (every 2xx event at every receiver, timed), then the
// webhooks are deleted, so the rounds without have none, not disabled ones that still fan out.
import { steadyBody } from './bodies.js';
import { load } from './load.js';
import { combine } from './scenarios.js';
import { cpuMeter, createHook, deleteHook, HOOKS } from './webhook-admin.js';

const now = () => performance.timeOrigin + performance.now();

/** One round with the webhooks of `hooks` (ids, or undefined: create them); answers the load and the catch-up. */
async function roundWith(ctx, stack, target, receivers, roles, hooks, seconds, from) {
  const ids = hooks ?? (await Promise.all(receivers.urls.slice(0, HOOKS).map((url) => createHook(stack.base, url))));
  if (!hooks) await new Promise((resolve) => setTimeout(resolve, 1500)); // the sender reads its webhooks
  await receivers.reset();
  const run = await load({ ...target, connections: 64, seconds, body: steadyBody, from, ids: true });
  const loadEnded = now();
  const indexes = ids.map((_, i) => i);
  const expected = run.ids.filter(Boolean);
  const meter = cpuMeter(roles);
  await receivers.waitFor(indexes, expected.length, ctx.quick ? 60_000 : 300_000);
  const report = await receivers.report(indexes);
  let missing = 0;
  let last = 0;
  for (const i of indexes) {
    for (const id of expected) if (!report[i].times.has(id)) missing++;
    last = Math.max(last, report[i].last);
  }
  const requests = report.reduce((total, r) => total + r.requests, 0);
  const catchUp = { deliveries: expected.length * ids.length, missing, seconds: (last - loadEnded) / 1000, cpuUsPerDelivery: meter(requests) };
  const deleting = performance.now();
  for (const id of ids) await deleteHook(stack.base, id);
  catchUp.deleteSeconds = (performance.now() - deleting) / 1000;
  delete run.ids;
  return { run, catchUp };
}

/** The rounds; answers the combined run with webhooks (ratio against the rounds without) and the catch-ups. */
export async function isolationPhase(ctx, stack, target, receivers, roles, hooks) {
  const rounds = ctx.quick ? 1 : 2;
  const seconds = ctx.quick ? 1 : Math.max(2, Math.ceil(ctx.seconds / 2));
  const withHooks = [];
  const without = [];
  let existing = hooks;
  let from = 9e6;
  for (let round = 0; round < rounds; round++) {
    for (const withWebhooks of round % 2 === 0 ? [true, false] : [false, true]) {
      if (withWebhooks) {
        withHooks.push(await roundWith(ctx, stack, target, receivers, roles, existing, seconds, from));
        existing = undefined;
      } else {
        without.push(await load({ ...target, connections: 64, seconds, body: steadyBody, from }));
      }
      from += 1e6;
    }
  }
  const run = combine(withHooks.map((w) => w.run));
  const base = combine(without);
  const catchUps = withHooks.map((w) => w.catchUp);
  const figures = {
    ratio: run.rps / base.rps,
    rounds: withHooks.map((w, i) => Math.round((100 * w.run.rps) / without[i].rps) / 100),
    catchUps,
    missing: catchUps.reduce((total, c) => total + c.missing, 0),
  };
  return { run: { ...run, base, ratio: figures.ratio }, figures };
}
