import { readFileSync } from 'node:fs';
import { Server as NetServer } from 'node:net';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { GrpcInternalsChanged, http2ListenersOf } from '../src/runtime/grpc-http2-listeners.js';

const bind = (server: Server) =>
  new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));

describe('grpc-js internals: a bound server\'s HTTP/2 listeners', () => {
  it('finds the listener bindAsync made, listening on the bound port', async () => {
    const server = new Server();
    try {
      const port = await bind(server);
      const listeners = http2ListenersOf(server);
      expect(listeners).toHaveLength(1);
      expect(listeners[0]).toBeInstanceOf(NetServer);
      expect(listeners[0]!.address()).toMatchObject({ port });
    } finally {
      server.forceShutdown();
    }
  });

  it.each([
    ['a server that bound nothing (an empty map)', () => new Server()],
    ['no http2Servers field', () => ({}) as Server],
    ['a field that is not a Map', () => ({ http2Servers: [new NetServer()] }) as unknown as Server],
    ['a Map keyed by something else', () => ({ http2Servers: new Map([['127.0.0.1:50051', {}]]) }) as unknown as Server],
  ])('fails loudly on %s, naming the module to update', (_, make) => {
    expect(() => http2ListenersOf(make())).toThrow(GrpcInternalsChanged);
    expect(() => http2ListenersOf(make())).toThrow(/@grpc\/grpc-js .*grpc-http2-listeners\.ts/);
  });

  it('runs against the exact @grpc/grpc-js version proto/package.json pins', () => {
    const pinned = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@grpc/grpc-js'];
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { version?: string }> };
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['node_modules/@grpc/grpc-js']?.version).toBe(pinned);
  });
});
