// The webhooks scenario's receivers, in a process of their own (forked by webhook-receivers.js):
// node:http servers on 127.0.0.1, one per webhook, that answer 204 and note when each event's
// delivery arrived; a `hang` receiver reads requests and never answers (a dead endpoint). Commands
// arrive over IPC; times are `performance.timeOrigin + performance.now()`, comparable across processes.
import { createServer } from 'node:http';

const DATA_ID = Buffer.from('"data":{"id":"');
const now = () => performance.timeOrigin + performance.now();

/** Per receiver: event id -> first arrival, requests, and webhook-ids seen twice (at-least-once repeats). */
function newState() {
  return { arrived: new Map(), requests: 0, repeats: 0, ids: new Set(), last: 0 };
}

const receivers = [];
const hung = new Set();

function answering(state) {
  return (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      res.writeHead(204).end();
      const s = state();
      s.requests++;
      const hookId = req.headers['webhook-id'];
      if (s.ids.has(hookId)) s.repeats++;
      else s.ids.add(hookId);
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const start = body.indexOf(DATA_ID);
      if (start === -1) return;
      const id = body.toString('latin1', start + DATA_ID.length, start + DATA_ID.length + 36);
      if (!s.arrived.has(id)) s.arrived.set(id, at);
      s.last = at;
    });
  };
}

function hanging(req) {
  hung.add(req.socket);
  req.socket.once('close', () => hung.delete(req.socket));
  req.resume(); // read the body, never answer
}

async function open(mode) {
  const receiver = { mode, state: newState() };
  const server = createServer({ keepAliveTimeout: 30_000 }, mode === 'hang' ? hanging : answering(() => receiver.state));
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.server = server;
  receivers.push(receiver);
  return server.address().port;
}

const summary = (r, withTimes) => ({
  requests: r.state.requests,
  distinct: r.state.arrived.size,
  repeats: r.state.repeats,
  last: r.state.last,
  times: withTimes ? [...r.state.arrived] : undefined,
});

const commands = {
  async open({ modes }) {
    const ports = [];
    for (const mode of modes) ports.push(await open(mode));
    return { ports };
  },
  reset() {
    for (const r of receivers) r.state = newState();
    return {};
  },
  counts: () => ({ receivers: receivers.map((r) => summary(r, false)) }),
  report: ({ indexes }) => ({ receivers: receivers.map((r, i) => summary(r, indexes.includes(i))) }),
  close() {
    for (const socket of hung) socket.destroy();
    for (const r of receivers) r.server.closeAllConnections?.();
    return Promise.all(receivers.map((r) => new Promise((resolve) => r.server.close(resolve)))).then(() => ({}));
  },
};

process.on('message', async ({ seq, op, args }) => {
  try {
    process.send({ seq, result: await commands[op](args ?? {}) });
  } catch (err) {
    process.send({ seq, error: String(err?.stack ?? err) });
  }
});
process.send({ ready: true });
