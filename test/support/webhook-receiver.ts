/** A webhook receiver for tests: node:http on a loopback address, recording what arrives. */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers the n-th request (0-based); the default is 204. */
export type Answer = (request: Received, n: number, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  received: Received[];
  /** Connections accepted (a refused address must leave this at 0). */
  connections: number;
  answer: Answer;
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(options: { host?: string; answer?: Answer } = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const waiters: Array<() => void> = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    connections: 0,
    answer: options.answer ?? ((_r, _n, res) => res.writeHead(204).end()),
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${receiver.received.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return receiver.received;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = receiver.received.push(request) - 1;
      receiver.answer(request, n, res);
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  server.on('connection', () => receiver.connections++);
  server.listen(0, host);
  await once(server, 'listening');
  receiver.url = `http://${host}:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
