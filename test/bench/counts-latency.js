// The counts and q= search reads on a stack over the 10 M-event database, one caller at a time:
// p50/p99 per query shape. `node test/bench/counts-latency.js http://127.0.0.1:PORT/api/platform/dh [ROUNDS]`
// (the stack's API base, on loopback; ROUNDS requests per shape, default 200, after 10 uncounted).
import { performance } from 'node:perf_hooks';

const [base, roundsArg] = process.argv.slice(2);
if (!base || !/^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?\//.test(base)) {
  throw new Error('usage: counts-latency.js http://127.0.0.1:PORT/api/platform/dh [ROUNDS] (loopback only)');
}
const rounds = Number(roundsArg ?? 200);
const hourUs = 3_600_000;
const at = (msAgo) => new Date(Date.now() - msAgo).toISOString();

/** The shapes the issue names (30 d by hour, 24 h by minute), by group, and the q= searches. */
const SHAPES = {
  '30 d by hour': () => `dynamic-events/counts?since=${at(30 * 24 * hourUs)}&bucket=hour`,
  '30 d by hour, group_by=event_type': () => `dynamic-events/counts?since=${at(30 * 24 * hourUs)}&bucket=hour&group_by=event_type`,
  '30 d by hour, group_by=device_name': () => `dynamic-events/counts?since=${at(30 * 24 * hourUs)}&bucket=hour&group_by=device_name`,
  '24 h by minute': () => `dynamic-events/counts?since=${at(24 * hourUs)}&bucket=minute`,
  '24 h by minute, group_by=device_name': () => `dynamic-events/counts?since=${at(24 * hourUs)}&bucket=minute&group_by=device_name`,
  '24 h by minute, one device': () => `dynamic-events/counts?since=${at(24 * hourUs)}&bucket=minute&device_name=bench-hist-${Math.floor(Math.random() * 1000)}&group_by=event_type`,
  'devices?q=': () => `devices?q=hist-${Math.floor(Math.random() * 1000)}`,
  'objects?q=': () => `objects?q=CAMERA%20${Math.floor(Math.random() * 1000)}`,
  'event-types?q=': () => 'event-types?q=motion',
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

for (const [name, path] of Object.entries(SHAPES)) {
  const times = [];
  for (let i = 0; i < rounds + 10; i++) {
    const t = performance.now();
    const res = await fetch(`${base}/${path()}`);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${body.slice(0, 200)}`);
    if (i >= 10) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(40)} p50 ${quantile(times, 0.5).toFixed(1)} ms  p99 ${quantile(times, 0.99).toFixed(1)} ms  (${rounds} requests)`);
}
