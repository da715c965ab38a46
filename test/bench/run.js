#!/usr/bin/env node
/**
 * `npm run bench`: throughput, latency and memory of POST /dynamic-events through the whole stack
 * (gateway → registry → Postgres, embedded defaults unless DATABASE_URL/REDIS_URL/S3_* are set),
 * reported as ratios against a plain node:http JSON server measured in the same run, because the
 * machine is shared and absolute numbers drift. BENCH_SECONDS (default 10) and BENCH_CONNECTIONS
 * (default 50) tune it. No assertion here: targets, when set, are checked against these ratios.
 */
import { fork, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function eventBody(device) {
  return JSON.stringify({
    source: { device_name: device, object_id: 'channel-1', object_domain: 'bench.camera.video', object_name: 'Bench camera', object_type: 'video_channel' },
    event: {
      event_type: { event_type: 'motion_detected', display_name: 'Motion detected', display_description: 'Benchmark event' },
      event_data: { event_additional_properties: { zone: 'lobby', confidence: '0.93' }, images: ['https://cdn.example.com/1.jpg'], video_clips: [] },
    },
  });
}

/** Resident memory (MiB) of a process and all its descendants, from /proc. */
function rssMiB(pid) {
  const children = (p) => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    const status = (() => { try { return readFileSync(`/proc/${p}/status`, 'utf8'); } catch { return ''; } })();
    total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    stack.push(...children(p));
  }
  return Math.round(total / 1024);
}

async function load(url, name, makeBody) {
  let n = 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: makeBody(n++) }) }],
  });
  const ok = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) console.error(`${name}: ${bad} failed requests (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`);
  return { name, rps: ok / result.duration, p50: result.latency.p50, p99: result.latency.p99, failed: bad };
}

async function waitReady(url) {
  for (let i = 0; i < 600; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became ready`);
}

// 1. Baseline: plain node:http.
const basePort = await freePort();
const baseline = fork(join(root, 'test/bench/baseline-server.js'), [String(basePort)], { stdio: 'inherit' });
await new Promise((r) => baseline.once('message', r));
const fixedBody = eventBody('bench-cam-1');
const results = [await load(`http://127.0.0.1:${basePort}/`, 'baseline node:http JSON', () => fixedBody)];
baseline.kill('SIGTERM');

// 2. The product, started the way `npm start` starts it.
const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
chmodSync(dataDir, 0o755);
const [port, registryPort, mediaPort] = [await freePort(), await freePort(), await freePort()];
const metricsPorts = [await freePort(), await freePort(), await freePort()];
const stack = spawn(process.execPath, ['deploy/local/start.js'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    REGISTRY_GRPC_PORT: String(registryPort),
    MEDIA_GRPC_PORT: String(mediaPort),
    GATEWAY_METRICS_PORT: String(metricsPorts[0]),
    REGISTRY_METRICS_PORT: String(metricsPorts[1]),
    MEDIA_METRICS_PORT: String(metricsPorts[2]),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
try {
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/readyz`);
  const url = `${base}/api/platform/dh/dynamic-events`;
  const rssIdle = rssMiB(stack.pid);
  // Warm-up: first sighting of the steady-state device, JIT, pools.
  await load(url, 'warm-up', () => fixedBody).catch(() => {});
  results.push(await load(url, 'steady state (known device, object, type)', () => fixedBody));
  results.push(await load(url, 'first sightings (new device and object each time)', (i) => eventBody(`bench-new-${Date.now()}-${i}`)));
  const rssLoaded = rssMiB(stack.pid);

  const [b] = results;
  console.log(`\nPOST /dynamic-events, ${connections} connections, ${seconds} s each (2xx per second)\n`);
  console.log('scenario'.padEnd(52), 'req/s'.padStart(9), 'ratio'.padStart(7), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'failed'.padStart(7));
  for (const r of results) {
    console.log(r.name.padEnd(52), r.rps.toFixed(0).padStart(9), (r.rps / b.rps).toFixed(3).padStart(7), String(r.p50).padStart(8), String(r.p99).padStart(8), String(r.failed).padStart(7));
  }
  console.log(`\nmemory (all stack processes incl. embedded Postgres): idle ${rssIdle} MiB, after load ${rssLoaded} MiB`);
} finally {
  stack.kill('SIGTERM');
  await new Promise((r) => stack.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
