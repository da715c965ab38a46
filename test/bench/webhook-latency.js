// Ingest at a fixed rate and the time from each POST's 200 to its delivery at each receiver.
import { Agent, request } from 'node:http';
import { steadyBody } from './bodies.js';
import { percentile } from './load.js';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const idOf = (text) => /"id":"([0-9a-f-]{36})"/.exec(text)?.[1];

/** POSTs on node:http with kept-alive connections (cheaper for the bench's process than fetch). */
function post(url, headers, body, agent) {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', (err) => resolve({ status: 0, text: err.message }));
    });
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(body);
  });
}

/**
 * Posts steady bodies at `rate` per second for `seconds` (paced on a 5 ms tick); answers the ids of
 * the events answered 200 with the time of each answer, and the failures.
 */
export async function pacedIngest(target, rate, seconds, from = 0) {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const headers = { ...target.headers, 'content-type': 'application/json' };
  const answered = new Map();
  const failures = [];
  const inFlight = new Set();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate) - sent;
    for (let i = 0; i < due; i++) {
      const p = post(target.url, headers, steadyBody(from + sent++), agent).then((res) => {
        const id = res.status === 200 ? idOf(res.text) : undefined;
        if (id) answered.set(id, now());
        else if (failures.length < 5) failures.push(`${res.status} ${res.text.slice(0, 200)}`);
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { answered, sent, failed: sent - answered.size, failures };
}

/**
 * Waits for the answered events at the receivers of `indexes` (up to `graceMs`), then answers the
 * latency percentiles over every (event, receiver) pair, the pairs missing and the repeats.
 */
export async function arrivals(receivers, indexes, answered, graceMs) {
  await receivers.waitFor(indexes, answered.size, graceMs);
  const report = await receivers.report(indexes);
  const latencies = [];
  let missing = 0;
  for (const i of indexes) {
    const times = report[i].times;
    for (const [id, at] of answered) {
      const seen = times.get(id);
      if (seen === undefined) missing++;
      else latencies.push(Math.max(0, seen - at));
    }
  }
  latencies.sort((a, b) => a - b);
  const repeats = indexes.reduce((total, i) => total + report[i].repeats, 0);
  const requests = indexes.reduce((total, i) => total + report[i].requests, 0);
  return { pairs: answered.size * indexes.length, missing, repeats, requests, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}
