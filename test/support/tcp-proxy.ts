/**
 * A TCP proxy in front of a real server, to cut it off and bring it back without touching the
 * server itself (other tests share it): stop() closes the listener and drops every connection, as a
 * crashed or unreachable database would look; vanish() closes the listener but leaves every
 * connection open and silent, as a host that lost power or was cut off by the network looks (no
 * FIN, no RST: the client learns nothing); start() listens again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  vanish(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Vanished: nothing passes either way and neither end hears of the other's close. */
  silent: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let server: Server | undefined;
  let port = 0;

  function relay(client: Socket): void {
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, silent: false };
    pairs.add(pair);
    const hangUp = () => {
      pairs.delete(pair);
      if (!pair.silent) {
        client.destroy();
        upstream.destroy();
      }
    };
    client.on('data', (d: Buffer) => void (pair.silent || upstream.write(d)));
    upstream.on('data', (d: Buffer) => void (pair.silent || client.write(d)));
    for (const socket of [client, upstream]) {
      socket.on('error', hangUp);
      socket.on('close', hangUp);
    }
  }

  function listen(): Promise<void> {
    server = createServer(relay);
    return new Promise((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  }

  const close = () => new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());

  await listen();
  return {
    get port() {
      return port;
    },
    start: listen,
    async stop() {
      const closing = close();
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      await closing;
    },
    async vanish() {
      const silenced = [...pairs];
      for (const pair of silenced) pair.silent = true;
      // The listener closes at once; the silenced connections stay open until the end of the test file.
      server?.close();
      server = undefined;
      for (const { client, upstream } of silenced) {
        client.unref();
        upstream.unref();
      }
    },
  };
}
