// The issue-8 figures: ten watchers following everything during the steady load (their cost, and how
// soon an event reaches a watcher after its 200), and ListEvents on the 10 M-event database.
import { steadyBody } from './bodies.js';
import { load } from './load.js';

const WATCHERS = 10;
const PROBE_EVERY_MS = 50;

/** Nearest-rank percentile in ms, two decimals. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 100) / 100;
}

/** An SSE client that only notes when each event id first arrived. */
async function openWatcher(url, headers) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const arrived = new Map();
  let frames = 0;
  const done = (async () => {
    const decoder = new TextDecoder();
    let tail = '';
    try {
      for await (const chunk of res.body) {
        const text = tail + decoder.decode(chunk, { stream: true });
        const now = performance.now();
        for (const m of text.matchAll(/^data: \{"id":"([0-9a-f-]{36})"/gm)) {
          frames++;
          if (!arrived.has(m[1])) arrived.set(m[1], now);
        }
        tail = text.slice(text.lastIndexOf('\n') + 1);
      }
    } catch {
      // closed
    }
  })();
  return { arrived, frames: () => frames, close: async () => { abort.abort(); await done; } };
}

/**
 * Steady load without watchers, then the same with ten SSE watchers following everything (each a
 * registry Watch stream), and a probe posting one event every 50 ms whose 200 → first frame time
 * is the latency. Ratio: with watchers / without.
 */
export async function watchScenario(ctx, target) {
  const streamUrl = `${target.url}/stream?kinds=event.created`;
  const without = await load({ ...target, connections: 64, seconds: ctx.seconds, body: steadyBody });
  const watchers = await Promise.all(Array.from({ length: WATCHERS }, () => openWatcher(streamUrl, target.headers)));
  const answered = new Map();
  let probing = true;
  const probe = (async () => {
    for (let n = 0; probing; n++) {
      const res = await fetch(target.url, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json' }, body: steadyBody(n) });
      const text = await res.text();
      if (res.status === 200) answered.set(JSON.parse(text).id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  const run = await load({ ...target, connections: 64, seconds: ctx.seconds, body: steadyBody });
  probing = false;
  await probe;
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the last probes' frames
  const latencies = [];
  let missing = 0;
  for (const [id, at] of answered) {
    for (const w of watchers) {
      const seen = w.arrived.get(id);
      if (seen === undefined) missing++;
      else latencies.push(Math.max(0, seen - at));
    }
  }
  const frames = watchers.reduce((total, w) => total + w.frames(), 0);
  await Promise.all(watchers.map((w) => w.close()));
  latencies.sort((a, b) => a - b);
  return {
    ...run,
    base: without,
    ratio: run.rps / without.rps,
    watch: { watchers: WATCHERS, probes: answered.size, framesPerWatcher: Math.round(frames / WATCHERS), missing, p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
  };
}

/**
 * GET the latest 100 events of one device (of the 1,000 seeded ones, in turn) on the 10 M-event
 * stack: with 8 connections (the goal; on two cores mostly a queue of CPU work), and with one (the
 * latency of a list alone).
 */
export function listScenario(ctx, target, connections = 8) {
  const path = new URL(target.url).pathname;
  return load({ ...target, connections, seconds: ctx.seconds, path: (n) => `${path}?device_name=bench-hist-${(n * 7) % 1000}&limit=100` });
}
