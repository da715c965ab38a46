#!/usr/bin/env node
/**
 * `node test/bench/stream-flood.js [--root DIR] [--streams N] [--addresses K] [--after S]` (run after
 * `npm run build`; DATABASE_URL used when set, the caps' variables passed through to the stack).
 *
 * The stream flood: `--streams` event streams opened against a stack as `npm start` runs it, each
 * with a `domain=` of its own (a registry Watch of its own), from `--addresses` loopback addresses in
 * turn, 100 at a time, and held open; then closed. RSS of gateway and registry is sampled every
 * 100 ms from before the flood until `--after` seconds after the close. It reports how many streams
 * got each status and the start, peak and final RSS. `MAX_STREAMS=5000 MAX_STREAMS_PER_CLIENT=0`
 * with `--streams 5000` shows the registry at its own cap (MAX_WATCHES) instead of the gateway's.
 */
import { request } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase, dropDatabase } from './database.js';
import { rssMiB } from './processes.js';
import { checkRoot, startStack } from './stack.js';

const { values: cli } = parseArgs({
  options: {
    root: { type: 'string', default: fileURLToPath(new URL('../..', import.meta.url)) },
    streams: { type: 'string', default: '6000' },
    addresses: { type: 'string', default: '60' }, // at most 250
    after: { type: 'string', default: '30' },
  },
});
const root = resolve(cli.root);
const [total, addressCount, afterS] = [cli.streams, cli.addresses, cli.after].map(Number);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** One stream of domain `n` from `from`: resolves with its status; a 200 stays open until its request is destroyed. */
function open(api, n, from) {
  return new Promise((done) => {
    const req = request(`${api}/dynamic-events/stream?domain=flood-${n}.example`, { agent: false, localAddress: from }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', () => req.destroy());
      }
      done({ status: res.statusCode ?? 0, req });
    });
    req.on('error', () => done({ status: 0, req }));
    req.end();
  });
}

checkRoot(root);
const serverUrl = process.env.DATABASE_URL;
const databaseName = `bench_flood_${process.pid}`;
const database = serverUrl ? await createDatabase(serverUrl, databaseName) : undefined;
const stack = await startStack(root, database ? { DATABASE_URL: database } : {}, 'flood');
try {
  const pids = { gateway: stack.services.gateway, registry: stack.services.registry };
  const rss = () => Object.fromEntries(Object.entries(pids).map(([role, pid]) => [role, Math.round(rssMiB(pid))]));
  const start = rss();
  const peak = { ...start };
  const timer = setInterval(() => Object.entries(rss()).forEach(([role, mib]) => (peak[role] = Math.max(peak[role], mib))), 100);
  const api = stack.url.replace(/\/dynamic-events$/, '');
  const opened = [];
  for (let i = 0; i < total; i += 100) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(100, total - i) }, (_, j) => open(api, i + j, `127.0.2.${1 + ((i + j) % addressCount)}`)))));
  }
  const statuses = opened.reduce((count, { status }) => ({ ...count, [status]: (count[status] ?? 0) + 1 }), {});
  const held = rss();
  for (const { req } of opened) req.destroy();
  await sleep(afterS * 1000);
  clearInterval(timer);
  console.log(JSON.stringify({ streams: total, addresses: addressCount, statuses, rssMiB: { start, held, peak, [`${afterS}sAfter`]: rss() } }));
} finally {
  await stack.stop();
  if (database) await dropDatabase(serverUrl, databaseName);
}
