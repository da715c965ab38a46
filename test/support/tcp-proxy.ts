/**
 * A TCP proxy in front of a real server, to cut it off and bring it back without touching the
 * server itself (other tests share it): stop() closes the listener and drops every connection, as a
 * crashed or unreachable database would look; start() listens again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  function listen(): Promise<void> {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).on('error', () => client.destroy());
      upstream.pipe(client).on('error', () => upstream.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    return new Promise((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  }

  await listen();
  return {
    get port() {
      return port;
    },
    start: listen,
    async stop() {
      const closing = new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
      for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}
