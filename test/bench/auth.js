// The token overhead (the goal: "with tokens on, steady-state ingest stays within 5 % of the
// throughput without auth"): the steady load on one stack, alternated in rounds between the
// instance open (no token required) and a token required and sent, switched through the admin API.
import { steadyBody } from './bodies.js';
import { load } from './load.js';
import { combine } from './scenarios.js';

/** ADMIN_TOKEN of the bench's stacks: the admin API is how a token is made and the requirement switched. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijklmnop';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls the admin API; throws on anything but the expected status. */
export async function admin(base, method, path, body, expected = 200) {
  const res = await fetch(`${base}/api/platform/dh/settings/dynamic-events${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Switches the requirement and waits until every gateway's copy has it (its sync interval is 1 s). */
async function requireToken(base, value) {
  await admin(base, 'PATCH', '', { require_token: value });
  await sleep(2500);
}

/**
 * Rounds of the steady load (64 connections): open (no header), and with a token required and sent.
 * Leaves the instance open, as the scenarios after it expect. The ratio is with / without.
 */
export async function authScenario(ctx, stack, target) {
  const { token } = await admin(stack.base, 'POST', '/tokens', { name: `bench-${ctx.runId}` }, 201);
  const withToken = { ...target, headers: { ...target.headers, authorization: `Bearer ${token}` } };
  // Six rounds, the order flipped each round: on this shared machine three rounds of one order
  // swung the ratio from 0.83 to 1.04 between runs of the same code.
  const rounds = ctx.quick ? 1 : 6;
  const seconds = Math.max(2, Math.ceil(ctx.seconds / 2));
  const open = [];
  const closed = [];
  const measure = async (required) => {
    await requireToken(stack.base, required);
    const run = await load({ ...(required ? withToken : target), connections: 64, seconds, body: steadyBody });
    (required ? closed : open).push(run);
  };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const required of round % 2 === 0 ? [false, true] : [true, false]) await measure(required);
    }
  } finally {
    await requireToken(stack.base, false);
  }
  const run = combine(closed);
  const base = combine(open);
  return { ...run, rounds: closed.map((r, i) => Math.round((100 * r.rps) / open[i].rps) / 100), base, ratio: run.rps / base.rps };
}
