#!/usr/bin/env node
/**
 * `npm run bench:grpc [-- --calls N] [-- --bytes B] [-- --rounds R]`
 *
 * What one gRPC exchange costs in CPU, client and server apart, on this machine: a unary call,
 * the same call through our metrics interceptors (proto/src/runtime/grpc-metrics.ts, on both sides, as
 * every service registers them), and one request/response message pair on an already-open
 * bidirectional stream. The payload is raw bytes (no protobuf), so the figures are grpc-js and
 * HTTP/2 alone. Eight callers at once, as the gateway's RECORD_CONCURRENCY; the server runs in a
 * child process. Variants alternate in rounds, each preceded by a short warm-up, and the report
 * gives each figure's median over the rounds and its ratio to plain unary: the machine is shared.
 *
 * It measures the design question behind the write path's per-call costs (the lanes of
 * proto/src/grpc-lanes-*.ts): how much of a call is the call itself, and what a long-lived stream would leave of it.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { createClientMetricsInterceptor, createServerMetricsInterceptor } from '../../proto/dist/src/runtime/grpc-metrics.js';

const CALLERS = 8;
const raw = (value) => value;
const method = (path, streaming) => ({
  path, requestStream: streaming, responseStream: streaming,
  requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw,
});
const SERVICE = { unary: method('/bench.Echo/Unary', false), stream: method('/bench.Echo/Stream', true) };
const cpuUs = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

/** The echo server: answers each request (or stream message) with its own bytes; tells its CPU over IPC. */
function serve(withMetrics) {
  const server = new grpc.Server(withMetrics ? { interceptors: [createServerMetricsInterceptor(new Registry())] } : {});
  server.addService(SERVICE, {
    unary: (call, done) => done(null, call.request),
    stream: (call) => {
      call.on('data', (message) => call.write(message));
      call.on('end', () => call.end());
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.send({ port });
  });
  process.on('message', (message) => message === 'cpu' && process.send({ cpu: cpuUs() }));
  process.on('disconnect', () => process.exit(0));
}

/** A server process (with or without metrics) and a client dialled to it. */
async function startPair(withMetrics) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', withMetrics ? 'metrics' : 'plain']);
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const Client = grpc.makeGenericClientConstructor(SERVICE, 'Echo');
  const options = withMetrics ? { interceptors: [createClientMetricsInterceptor(new Registry())] } : {};
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options);
  const serverCpu = () => new Promise((resolve) => {
    child.once('message', (message) => resolve(message.cpu));
    child.send('cpu');
  });
  return { client, serverCpu, close: () => { client.close(); child.disconnect(); } };
}

/** `calls` unary calls from CALLERS callers at once, each with a deadline as our clients set one. */
async function unaryCalls(client, payload, calls) {
  let left = calls;
  const caller = async () => {
    while (left-- > 0) {
      await new Promise((resolve, reject) => client.unary(payload, { deadline: Date.now() + 10_000 }, (err) => (err ? reject(err) : resolve())));
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, caller));
}

/** `calls` request/response pairs over CALLERS open streams, one message outstanding on each. */
async function streamMessages(client, payload, calls) {
  let left = calls;
  const caller = async () => {
    const stream = client.stream();
    while (left-- > 0) {
      const answered = new Promise((resolve) => stream.once('data', resolve));
      stream.write(payload);
      await answered;
    }
    const ended = new Promise((resolve) => stream.once('status', resolve));
    stream.end();
    await ended;
  };
  await Promise.all(Array.from({ length: CALLERS }, caller));
}

async function measure(pair, run, payload, calls) {
  await run(pair.client, payload, Math.max(200, calls / 10));
  const [client0, server0, t0] = [cpuUs(), await pair.serverCpu(), performance.now()];
  await run(pair.client, payload, calls);
  const [client1, server1, t1] = [cpuUs(), await pair.serverCpu(), performance.now()];
  return { perSecond: calls / ((t1 - t0) / 1000), client: (client1 - client0) / calls, server: (server1 - server0) / calls };
}

async function main() {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '10000' }, bytes: { type: 'string', default: '2500' }, rounds: { type: 'string', default: '5' }, serve: { type: 'string' } } });
  if (values.serve) return serve(values.serve === 'metrics');
  const calls = Number(values.calls);
  const rounds = Number(values.rounds);
  const payload = Buffer.alloc(Number(values.bytes), 0x2a);
  const plain = await startPair(false);
  const metered = await startPair(true);
  const variants = [
    { name: 'unary', pair: plain, run: unaryCalls, results: [] },
    { name: 'unary + metrics interceptors', pair: metered, run: unaryCalls, results: [] },
    { name: 'message on an open stream', pair: plain, run: streamMessages, results: [] },
  ];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) v.results.push(await measure(v.pair, v.run, payload, calls));
  }
  plain.close();
  metered.close();
  const median = (list, key) => list.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const base = { client: median(variants[0].results, 'client'), server: median(variants[0].results, 'server') };
  console.log(`${calls} exchanges of ${payload.length} bytes per round, ${CALLERS} at once, ${rounds} alternated rounds (each figure: its median over the rounds)`);
  console.log('variant                          exchanges/s  client µs  server µs  client × unary  server × unary');
  for (const v of variants) {
    const [rate, client, server] = ['perSecond', 'client', 'server'].map((key) => median(v.results, key));
    console.log(`${v.name.padEnd(31)}  ${rate.toFixed(0).padStart(11)}  ${client.toFixed(1).padStart(9)}  ${server.toFixed(1).padStart(9)}  ${(client / base.client).toFixed(2).padStart(14)}  ${(server / base.server).toFixed(2).padStart(14)}`);
  }
}

await main();
