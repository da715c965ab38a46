#!/usr/bin/env node
/**
 * `node test/bench/resume-storm.js [--root DIR] [--clients N] [--events N] [--hold S] [--after S] [--spread] [--json FILE]`
 * (DATABASE_URL required, REDIS_URL used when set; run after `npm run build`).
 *
 * The resume storm: what streams that resume from an old cursor and then read nothing cost each
 * process. On a stack started as `npm start` starts it (stack.js) over a fresh database of the
 * DATABASE_URL server, it posts `--events` events of about 4 MiB (256 properties of 16,000
 * characters: within the README's Limits), then opens `--clients` streams resuming from the cursor
 * just before them, half SSE over the gateway (Last-Event-ID), half raw gRPC Watch calls on the
 * registry (HTTP/2 with the window never opened again), none of which reads. They stay open `--hold`
 * seconds (past the 30 s stall limit), then close; RSS of every service is sampled from
 * /proc/<pid>/status every 250 ms from before the storm until `--after` seconds after the close, and
 * /readyz is asked every second. The report gives start, peak and final RSS per process, the
 * slowest /readyz answer and how many streams the servers ended on their own. With `--spread` the
 * clients resume from different commits among the events (client i after event i mod N), so each
 * reads pages of its own instead of all sharing one read.
 */
import { connect as connectHttp2, constants } from 'node:http2';
import { connect as connectTcp } from 'node:net';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase, dropDatabase } from './database.js';
import { rssMiB } from './processes.js';
import { openSseClient } from './sse-client.js';
import { checkRoot, startStack } from './stack.js';

const { values: cli } = parseArgs({
  options: {
    root: { type: 'string', default: fileURLToPath(new URL('../..', import.meta.url)) },
    clients: { type: 'string', default: '100' }, events: { type: 'string', default: '30' },
    hold: { type: 'string', default: '45' }, after: { type: 'string', default: '120' }, json: { type: 'string' },
    spread: { type: 'boolean', default: false },
  },
});
const root = resolve(cli.root);
const [clients, events, holdS, afterS] = [cli.clients, cli.events, cli.hold, cli.after].map(Number);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL is required (the storm runs on a fresh database of that server)');
const log = (line) => console.error(`storm: ${line}`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** An event of about 4 MiB: 256 properties of 16,000 characters (the README's Limits allow 256 of 16,384). */
function bigEvent(n, count = 256) {
  const properties = Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, `${n}-${i}-`.padEnd(16_000, 'abcdefghij')]));
  return JSON.stringify({
    source: { device_name: 'storm-camera', object_id: 'cam-1', object_domain: 'storm.camera.video', object_name: 'Storm camera', object_type: 'video_channel' },
    event: { event_type: { event_type: 'motion_detected', display_name: 'Motion', display_description: 'Motion in the storm' }, event_data: { event_additional_properties: properties, images: [], video_clips: [] } },
  });
}

async function post(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!res.ok) throw new Error(`POST answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

/** The cursor of a small marker event, read from a stream opened before it is posted. */
async function cursorBeforeStorm(url) {
  let resolveId;
  const id = new Promise((done) => (resolveId = done));
  const reader = await openSseClient(`${url}/stream?kinds=event.created`, {}, (buf) => {
    const match = /^id: (.+)$/m.exec(buf.toString('utf8'));
    if (match) resolveId(match[1]);
  });
  await post(url, bigEvent('marker', 1));
  const cursor = await Promise.race([id, sleep(10_000).then(() => undefined)]);
  await reader.close();
  if (!cursor) throw new Error('the marker event never reached the stream');
  return cursor;
}

/**
 * The cursor of the commit `n` after the one `cursor` points into (bench-only knowledge of the
 * cursor's format: base64url JSON whose `s` is the commit number, `i` the position in it).
 */
function cursorAfter(cursor, n) {
  const doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  return Buffer.from(JSON.stringify({ ...doc, s: String(BigInt(doc.s) + BigInt(n)), i: 'end' })).toString('base64url');
}

/** An SSE client resuming after `cursor` that never reads: a raw socket, paused once the request is out. */
function sseNonReader(base, cursor, ended) {
  const { hostname, port } = new URL(base);
  const socket = connectTcp({ host: hostname, port: Number(port) });
  socket.write(`GET ${new URL(base).pathname}/stream HTTP/1.1\r\nhost: ${hostname}\r\naccept: text/event-stream\r\nlast-event-id: ${cursor}\r\n\r\n`);
  socket.pause();
  let closing = false;
  socket.on('error', () => {});
  socket.once('close', () => closing || ended('sse'));
  return () => {
    closing = true;
    socket.destroy();
  };
}

/** A WatchRequest with only after_cursor (field 3), framed as a gRPC message. */
function watchRequest(cursor) {
  const text = Buffer.from(cursor);
  const message = Buffer.concat([Buffer.from([0x1a]), varint(text.length), text]);
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(message.length, 1);
  return Buffer.concat([frame, message]);
}
const varint = (n) => {
  const bytes = [];
  for (; n > 0x7f; n >>>= 7) bytes.push((n & 0x7f) | 0x80);
  bytes.push(n);
  return Buffer.from(bytes);
};

/** A gRPC Watch resuming after `cursor` on a raw HTTP/2 session, whose response is never read (its window stays shut). */
function grpcNonReader(address, cursor, ended) {
  const session = connectHttp2(`http://${address}`);
  session.on('error', () => {});
  const stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/dynamic_events.registry.v1.RegistryService/Watch',
    'content-type': 'application/grpc', te: 'trailers',
  });
  stream.on('error', () => {});
  let status;
  stream.on('trailers', (trailers) => (status = trailers['grpc-status']));
  stream.on('response', (headers) => (status ??= headers['grpc-status']));
  stream.end(watchRequest(cursor));
  stream.pause();
  let closing = false;
  stream.once('close', () => closing || ended(`grpc${status === undefined ? '' : ` status ${status}`}`));
  return () => {
    closing = true;
    stream.close(constants.NGHTTP2_CANCEL);
    session.destroy();
  };
}

/** RSS of each service every 250 ms, with the phase it was taken in. */
function sampler(services) {
  const samples = [];
  let phase = 'before';
  const take = () => samples.push({ t: Date.now(), phase, ...Object.fromEntries(Object.entries(services).map(([role, pid]) => [role, rssMiB(pid)])) });
  take();
  const timer = setInterval(take, 250);
  return { samples, phase: (next) => (phase = next), stop: () => clearInterval(timer) };
}

/** /readyz every second; the slowest answer in ms (an unanswered probe counts as its 5 s timeout). */
function readiness(base) {
  let slowest = 0;
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const started = performance.now();
      await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) }).then((res) => res.arrayBuffer(), () => undefined);
      slowest = Math.max(slowest, performance.now() - started);
      await sleep(1000);
    }
  })();
  return { stop: () => ((stopped = true), Math.round(slowest)) };
}

/** Heap used, heap total and external memory (MiB) of each service, from its /metrics (prom-client's default metrics). */
async function heaps(metricsUrls) {
  const figures = {};
  for (const [role, url] of Object.entries(metricsUrls)) {
    const text = await fetch(url).then((res) => res.text(), () => '');
    const value = (name) => Math.round(Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1048576);
    figures[role] = { heapUsedMiB: value('nodejs_heap_size_used_bytes'), heapTotalMiB: value('nodejs_heap_size_total_bytes'), externalMiB: value('nodejs_external_memory_bytes') };
  }
  return figures;
}

/**
 * Per process: RSS before the events were posted (`beforePostsMiB`), at the storm's start (`startMiB`,
 * which also holds whatever garbage of the posts is not collected yet), its peak, and 2 min after.
 */
function summary(samples, roles, beforePosts) {
  const at = (phase) => samples.filter((s) => s.phase === phase);
  const rows = {};
  for (const role of roles) {
    const start = at('before').at(-1)[role];
    const peak = Math.max(...samples.map((s) => s[role]));
    const final = samples.at(-1)[role];
    rows[role] = {
      beforePostsMiB: Math.round(beforePosts[role]), startMiB: Math.round(start), peakMiB: Math.round(peak), finalMiB: Math.round(final),
      finalMinusStartMiB: Math.round(final - start), finalMinusBeforePostsMiB: Math.round(final - beforePosts[role]),
    };
  }
  return rows;
}

async function main() {
  checkRoot(root);
  const dbName = `bench_storm_${process.pid}`;
  const dbUrl = await createDatabase(serverUrl, dbName);
  const stack = await startStack(root, { DATABASE_URL: dbUrl }, 'storm').catch(async (err) => {
    await dropDatabase(serverUrl, dbName);
    throw err;
  });
  try {
    const cursor = await cursorBeforeStorm(stack.url);
    const beforePosts = Object.fromEntries(Object.entries(stack.services).map(([role, pid]) => [role, rssMiB(pid)]));
    log(`cursor before the storm: ${cursor}; posting ${events} events of about 4 MiB`);
    for (let n = 0; n < events; n++) await post(stack.url, bigEvent(n));
    await sleep(5000);
    const roles = Object.keys(stack.services);
    const heapsBefore = await heaps(stack.metricsUrls);
    const rss = sampler(stack.services);
    await sleep(2000);
    const ready = readiness(stack.base);
    rss.phase('storm');
    const ended = {};
    const end = (kind) => (ended[kind] = (ended[kind] ?? 0) + 1);
    const closers = [];
    for (let i = 0; i < clients; i++) {
      const from = cli.spread ? cursorAfter(cursor, Math.floor(i / 2) % events) : cursor;
      closers.push(i % 2 === 0 ? sseNonReader(stack.url, from, end) : grpcNonReader(stack.registryAddr, from, end));
    }
    log(`${clients} non-reading streams open; holding ${holdS} s`);
    await sleep(holdS * 1000);
    for (const close of closers) close();
    const slowestReadyMs = ready.stop();
    rss.phase('after');
    log(`closed; sampling ${afterS} s more`);
    await sleep(afterS * 1000);
    rss.stop();
    const heapsAfter = await heaps(stack.metricsUrls);
    const report = { root, clients, events, spread: cli.spread, holdS, afterS, slowestReadyMs, endedByServer: ended, rss: summary(rss.samples, roles, beforePosts), heapsBefore, heapsAfter };
    console.log(JSON.stringify(report, null, 2));
    if (cli.json) writeFileSync(cli.json, JSON.stringify({ ...report, samples: rss.samples }, null, 1));
  } finally {
    await stack.stop();
    await dropDatabase(serverUrl, dbName);
  }
}

await main();
