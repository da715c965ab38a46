// The bench's side of the webhook receivers (webhook-receiver-server.js, a process of its own so its
// CPU is counted apart from the load tool's): opens them, resets and reads what arrived, stops them.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const server = fileURLToPath(new URL('./webhook-receiver-server.js', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Forks the receivers' process and opens one receiver per mode ('ok' answers 204, 'hang' never answers). */
export async function startReceivers(modes) {
  const child = fork(server, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the webhook receivers exited with ${code}`)));
  });
  let seq = 0;
  const waiting = new Map();
  child.on('message', (m) => {
    const done = waiting.get(m.seq);
    waiting.delete(m.seq);
    if (m.error) done?.reject(new Error(`webhook receivers: ${m.error}`));
    else done?.resolve(m.result);
  });
  const call = (op, args) =>
    new Promise((resolve, reject) => {
      waiting.set(++seq, { resolve, reject });
      child.send({ seq, op, args });
    });
  const { ports } = await call('open', { modes });
  return {
    pid: child.pid,
    urls: ports.map((port, i) => `http://127.0.0.1:${port}/hook-${i}`),
    reset: () => call('reset'),
    /** Per receiver: requests, distinct events, repeats, last arrival. */
    counts: async () => (await call('counts')).receivers,
    /** As counts, with `times` (Map of event id -> arrival) for the receivers at `indexes`. */
    report: async (indexes) => (await call('report', { indexes })).receivers.map((r) => ({ ...r, times: r.times && new Map(r.times) })),
    /**
     * Waits until every receiver at `indexes` has `expected` distinct events, or `timeoutMs` passed;
     * answers whether they did.
     */
    async waitFor(indexes, expected, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const counts = await call('counts');
        if (indexes.every((i) => counts.receivers[i].distinct >= expected)) return true;
        if (Date.now() > deadline) return false;
        await sleep(50);
      }
    },
    async stop() {
      await Promise.race([call('close'), sleep(2000)]);
      child.kill('SIGTERM');
    },
  };
}
