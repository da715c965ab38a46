// The webhooks scenario: a backlog drained, the time from a POST's 200 to each receiver at
// a fixed rate, the same with one endpoint dead, and saturating ingest with ten webhooks against none
// (webhook-isolation.js). Receivers run in a process of their own (webhook-receivers.js).
import { admin } from './auth.js';
import { steadyBody } from './bodies.js';
import { load } from './load.js';
import { sampleRss } from './processes.js';
import { freePort } from './stack.js';
import { arrivals, pacedIngest } from './webhook-latency.js';
import { isolationPhase } from './webhook-isolation.js';
import { startReceivers } from './webhook-receivers.js';
import { cpuMeter, createHook, deleteHook, HOOKS } from './webhook-admin.js';

const RATE = 200;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The registry's pending deliveries of one webhook, from its metrics. */
async function pendingOf(metricsUrl, id) {
  const text = await fetch(metricsUrl).then((res) => res.text(), () => '');
  const line = new RegExp(`^registry_webhook_pending_deliveries\\{webhook_id="${id}"\\} (\\d+)$`, 'm').exec(text);
  return line ? Number(line[1]) : 0;
}

/**
 * (a) A webhook created disabled, `count` events posted, its deliveries waited for (all pending),
 * then enabled: deliveries per second from the enabling PATCH to the last arrival.
 */
async function drainPhase(ctx, stack, target, receivers, roles) {
  const count = ctx.quick ? 2000 : 20_000;
  const id = await createHook(stack.base, receivers.urls[0], false);
  const posted = await load({ ...target, connections: 64, amount: count, body: steadyBody, from: 5e6 });
  const expected = posted.ok;
  const deadline = Date.now() + 120_000;
  while ((await pendingOf(stack.metricsUrls.registry, id)) < expected) {
    if (Date.now() > deadline) throw new Error(`webhooks drain: fewer than ${expected} deliveries pending after 120 s`);
    await sleep(200);
  }
  await receivers.reset();
  const meter = cpuMeter(roles);
  const enabledAt = now();
  await admin(stack.base, 'PATCH', `/webhooks/${id}`, { enabled: true });
  await receivers.waitFor([0], expected, ctx.quick ? 60_000 : 180_000);
  const [r] = await receivers.counts();
  const cpuUsPerDelivery = meter(r.requests);
  const seconds = (r.last - enabledAt) / 1000;
  await deleteHook(stack.base, id);
  return { deliveries: expected, arrived: r.distinct, missing: expected - r.distinct, repeats: r.repeats, failed: posted.failed, seconds, rate: r.distinct / seconds, cpuUsPerDelivery };
}

/** (b) `RATE` events/s for the scenario's time; latency from each 200 to the receivers at `indexes`. */
async function latencyPhase(ctx, target, receivers, roles, indexes, from) {
  await receivers.reset();
  const meter = cpuMeter(roles);
  const ingest = await pacedIngest(target, RATE, ctx.seconds, from);
  const seen = await arrivals(receivers, indexes, ingest.answered, 10_000);
  const counts = await receivers.counts();
  const requests = counts.reduce((total, c) => total + c.requests, 0);
  return { events: ingest.answered.size, failed: ingest.failed, failures: ingest.failures, ...seen, cpuUsPerDelivery: meter(requests) };
}

/** Webhook `HOOKS - 1` pointed at `url` (refused, or a receiver that never answers) while the others are measured. */
async function deadPhase(ctx, stack, target, receivers, roles, hooks, url, from) {
  await admin(stack.base, 'PATCH', `/webhooks/${hooks.at(-1)}`, { url });
  await sleep(1500); // the sender re-reads its webhooks
  const healthy = Array.from({ length: HOOKS - 1 }, (_, i) => i);
  return latencyPhase(ctx, target, receivers, roles, healthy, from);
}

/** The whole scenario on a running stack; the ingest figures (rate, ratio) are the isolation's. */
export async function webhooksScenario(ctx, stack, target) {
  const receivers = await startReceivers([...Array.from({ length: HOOKS }, () => 'ok'), 'hang']);
  const refused = `http://127.0.0.1:${await freePort()}/refused`;
  const roles = () => ({ ...target.roles(), receivers: [receivers.pid] });
  const memory = sampleRss(target.rss);
  const phases = {};
  /** Runs a phase with its own RSS sampling: which phase a peak belongs to. */
  const measure = async (run) => {
    const rss = sampleRss(target.rss);
    try {
      return { ...(await run()), maxRssMiB: rss.stop() };
    } finally {
      rss.stop();
    }
  };
  try {
    ctx.log('webhooks: drain');
    phases.drain = await measure(() => drainPhase(ctx, stack, target, receivers, roles));
    const hooks = [];
    for (let i = 0; i < HOOKS; i++) hooks.push(await createHook(stack.base, receivers.urls[i]));
    await sleep(1500);
    const all = hooks.map((_, i) => i);
    ctx.log('webhooks: latency');
    phases.latency = await measure(() => latencyPhase(ctx, target, receivers, roles, all, 6e6));
    ctx.log('webhooks: one endpoint refusing connections');
    phases.refused = await measure(() => deadPhase(ctx, stack, target, receivers, roles, hooks, refused, 7e6));
    ctx.log('webhooks: one endpoint never answering');
    phases.hang = await measure(() => deadPhase(ctx, stack, target, receivers, roles, hooks, receivers.urls[HOOKS], 8e6));
    // A fresh tenth webhook: the dead one's retries are not the isolation's to deliver.
    await deleteHook(stack.base, hooks.pop());
    hooks.push(await createHook(stack.base, receivers.urls[HOOKS - 1]));
    ctx.log('webhooks: isolation');
    const isolation = await measure(() => isolationPhase(ctx, stack, target, receivers, roles, hooks));
    phases.isolation = { ...isolation.figures, maxRssMiB: isolation.maxRssMiB };
    const anomalies = phases.drain.missing + phases.latency.missing + phases.refused.missing + phases.hang.missing + isolation.figures.missing;
    const failed = isolation.run.failed + phases.drain.failed + phases.latency.failed + phases.refused.failed + phases.hang.failed;
    return { ...isolation.run, failed, webhooks: phases, check: { anomalies }, maxRssMiB: memory.stop() };
  } finally {
    memory.stop();
    await receivers.stop();
  }
}
