/**
 * A handler's ctx.signal aborts when its caller cancels while it runs, and only then. grpc-js also
 * reports 'cancelled' when a finished call's stream closes; aborting then cost an AbortError (a
 * DOMException with its stack) per call for nobody.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createGrpcClient, createGrpcServer, type GrpcServer } from '../src/runtime/index.js';
import { media } from '../src/contract/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a call context signal', () => {
  let server: GrpcServer;
  let client: media.MediaServiceClient;
  const signals: AbortSignal[] = [];
  let started: () => void = () => {};

  beforeAll(async () => {
    server = createGrpcServer({ logger: pino({ level: 'silent' }) });
    server.addService<media.MediaServiceServer>(media.MediaServiceService, {
      storeImageStream: () => Promise.reject(new Error('not in this test')),
      async storeImage(request, ctx) {
        signals.push(ctx.signal);
        if (request.data.toString() === 'wait') {
          started();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        }
        return { key: 'k', url: 'u', contentType: 'image/png', sizeBytes: '1', width: 1, height: 1, created: true };
      },
      async *getImage() {},
    });
    const port = await server.listen('127.0.0.1:0');
    client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`);
  });
  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
  });

  it('stays unaborted after the handler answered and the stream closed', async () => {
    await new Promise((resolve, reject) => client.storeImage({ data: Buffer.from('x') }, (err, res) => (err ? reject(err) : resolve(res))));
    await sleep(50);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(false);
  });

  it('aborts when the caller cancels while the handler runs', async () => {
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = client.storeImage({ data: Buffer.from('wait') }, () => {});
    await running;
    call.cancel();
    // The cancellation crosses HTTP/2 to the server: wait for it (a fixed 50 ms is too short under load).
    await expect.poll(() => signals[1]?.aborted, { timeout: 5000 }).toBe(true);
    expect(signals).toHaveLength(2);
  });
});
