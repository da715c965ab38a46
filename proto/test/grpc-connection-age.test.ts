import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { callUnary, createGrpcClient, createGrpcServer } from '../src/runtime/index.js';
import { media } from '../src/contract/index.js';

/**
 * Why it matters: a client of a headless Service only discovers pods added by a scale-out when it
 * reconnects. The server ends every connection after its max age, so clients keep spreading out.
 */
describe('connection age', () => {
  it('makes a long-lived client reconnect, with no call failing on the way', async () => {
    const server = createGrpcServer({ logger: pino({ level: 'silent' }), maxConnectionAgeMs: 300 });
    const peers = new Set<string>();
    // Registered raw (not through addService's wrapper) to see each call's peer address.
    server.server.addService(media.MediaServiceService, {
      storeImage: (call: { getPeer(): string }, callback: (err: null, res: media.StoreImageResponse) => void) => {
        peers.add(call.getPeer());
        callback(null, { key: 'k', contentType: 'image/png', sizeBytes: '1', width: 1, height: 1, created: true });
      },
      getImage: () => undefined,
    });
    const port = await server.listen('127.0.0.1:0');
    const client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`);
    try {
      // Calls go on until more than 20 were answered over at least 3 connections (one per ~300 ms of
      // age); a generous deadline ends a run that never gets there. Every call must succeed.
      const deadline = Date.now() + 20_000;
      let calls = 0;
      while ((calls <= 20 || peers.size < 3) && Date.now() < deadline) {
        await callUnary(client.storeImage.bind(client), { data: Buffer.from('x') }, { deadlineMs: 5000 });
        calls++;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(calls).toBeGreaterThan(20);
      expect(peers.size).toBeGreaterThanOrEqual(3);
    } finally {
      client.close();
      await server.shutdown(1000);
    }
  });
});
