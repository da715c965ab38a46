// One load run with autocannon, in this process: 2xx rate, latency percentiles (own sub-millisecond
// histogram: autocannon's rounds to whole ms, too coarse for one connection), failures with their
// first distinct answers, and CPU µs per 2xx answer of every process involved (/proc and cpuUsage).
import autocannon from 'autocannon';
import { gcDelta } from './gc.js';
import { cpuDelta, cpuSnapshot, sampleRss } from './processes.js';

const MAX_SAMPLES = 5;

/** Nearest-rank percentile of sorted samples, in ms with two decimals. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 100) / 100;
}

/** First distinct non-2xx answers and connection errors, with counts, so failures can be read. */
function failureLog() {
  const seen = new Map();
  return {
    add(key) {
      if (seen.has(key)) seen.set(key, seen.get(key) + 1);
      else if (seen.size < MAX_SAMPLES) seen.set(key, 1);
    },
    list: () => [...seen].map(([what, count]) => ({ what, count })),
  };
}

/** Pulls the event id out of a response without a JSON.parse per answer. */
const idOf = (body) => /"id":"([0-9a-f-]{36})"/.exec(body)?.[1];

/** A batch answer's count of refused events (its last member). */
const refusedOf = (body) => Number(/"refused":(\d+)\}$/.exec(body)?.[1] ?? NaN);

/**
 * Runs `connections` connections for `seconds` (or `amount` requests); body(n) gives request n's
 * body (n counts from `from`). `roles()` lists pids per role for the CPU figures; `rss` ({role: pid})
 * is sampled every 500 ms; `ids` keeps the event ids of the 2xx answers. With `path(n)` instead of
 * `body`, request n is a GET of that path. `gc()` reads the processes' GC figures (gc.js), before and after.
 * `refused`: the 2xx answers are batch answers; their refused events are summed (`refusedEvents`).
 */
export async function load({ url, headers = {}, connections, seconds, amount, body, path, from = 0, roles, rss, gc, ids = false, refused = false }) {
  let next = from;
  const latencies = [];
  const failures = failureLog();
  const answeredIds = ids ? [] : undefined;
  let refusedEvents = 0;
  const onResponse = (status, text) => {
    if (status < 200 || status > 299) failures.add(`${status} ${String(text).slice(0, 200)}`);
    else if (answeredIds) answeredIds.push(idOf(text));
    else if (refused) {
      const n = refusedOf(String(text));
      refusedEvents += Number.isNaN(n) ? 1 : n;
      if (n > 0) failures.add(`refused in a batch: ${String(text).slice(0, 200)}`);
    }
  };
  const setupClient = (client) => client.on('response', (status, _bytes, ms) => status >= 200 && status < 300 && latencies.push(ms));
  // `path(n)` instead of `body(n)`: GET request n at that path (the list scenario).
  const setupRequest = path ? (req) => ({ ...req, method: 'GET', path: path(next++) }) : (req) => ({ ...req, body: body(next++) });
  const options = {
    url, method: path ? 'GET' : 'POST', connections, headers: path ? headers : { ...headers, 'content-type': 'application/json' }, setupClient,
    requests: [{ setupRequest, onResponse }],
    ...(amount ? { amount } : { duration: seconds }),
  };
  const memory = rss ? sampleRss(rss) : undefined;
  const gcBefore = await gc?.();
  const before = cpuSnapshot(roles);
  const tool = process.cpuUsage();
  const tracker = autocannon(options);
  tracker.on('reqError', (err) => failures.add(`error: ${err.message}`));
  const result = await tracker;
  const used = process.cpuUsage(tool);
  const cpu = { load: used.user + used.system, ...cpuDelta(before, cpuSnapshot(roles)) };
  const gcUsed = gcDelta(gcBefore, await gc?.());
  const maxRss = memory?.stop();
  latencies.sort((a, b) => a - b);
  const ok = result['2xx'];
  const perEvent = Object.fromEntries(Object.entries(cpu).map(([role, us]) => [role, ok > 0 ? Math.round(us / ok) : null]));
  return {
    connections,
    seconds: result.duration,
    ok,
    rps: ok / result.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed: result.non2xx + result.errors, // autocannon counts a timeout as an error too
    non2xx: result.non2xx,
    errors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    sent: next - from,
    unanswered: next - from - ok - result.non2xx,
    failures: failures.list(),
    cpuUsPerEvent: perEvent,
    cpuUs: cpu,
    maxRssMiB: maxRss,
    gc: gcUsed,
    ids: answeredIds,
    refusedEvents,
  };
}
