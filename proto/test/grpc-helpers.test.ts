import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import {
  AppError,
  formatTimestamp,
  httpStatusOf,
  media,
  MEDIA_SERVICE_NAME,
  timestampFromMicros,
} from '../src/contract/index.js';
import {
  callStream,
  callUnary,
  createGrpcClient,
  createGrpcServer,
  createHealthChecker,
  type GrpcServer,
} from '../src/runtime/index.js';

const logger = pino({ level: 'silent' });

// One server for the two describes below; the last test shuts it down while a call is in flight.
let server: GrpcServer;
let client: media.MediaServiceClient;
let address: string;
let release: () => void = () => {};
const slow = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  server = createGrpcServer({ logger });
  server.addService<media.MediaServiceServer>(media.MediaServiceService, {
    storeImageStream: () => Promise.reject(new Error('not in this test')),
    async storeImage(request) {
      const text = request.data.toString();
      if (text === 'bad') throw new AppError('INVALID_ARGUMENT', 'data is not an image', { field: 'data', rule: 'format', httpStatus: 415 });
      if (text === 'boom') throw new Error('secret connection string postgres://u:p@db');
      if (text === 'slow') await slow;
      return { key: 'k', url: 'u', contentType: 'image/png', sizeBytes: String(request.data.length), width: 1, height: 1, created: true };
    },
    async *getImage(request) {
      if (request.key === 'missing') throw new AppError('NOT_FOUND', 'image missing not found');
      yield { contentType: 'image/png', sizeBytes: '6', chunk: Buffer.from('abc') };
      yield { contentType: '', sizeBytes: '0', chunk: Buffer.from('def') };
    },
  });
  const port = await server.listen('127.0.0.1:0');
  address = `127.0.0.1:${port}`;
  server.setServing(true);
  client = createGrpcClient(media.MediaServiceClient, address);
});

afterAll(async () => {
  client.close();
  await server.shutdown(1000);
});

describe('gRPC helpers over a real server', () => {
  it('returns responses and keeps AppError code, message and details', async () => {
    const ok = await callUnary(client.storeImage.bind(client), { data: Buffer.from('png') }, { deadlineMs: 2000 });
    expect(ok.sizeBytes).toBe('3');
    const err = await callUnary(client.storeImage.bind(client), { data: Buffer.from('bad') }, { deadlineMs: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'data is not an image', details: { field: 'data', rule: 'format', httpStatus: 415 } });
    expect(httpStatusOf(err as AppError)).toBe(415);
  });

  it('never shows an internal message to the caller', async () => {
    const err = (await callUnary(client.storeImage.bind(client), { data: Buffer.from('boom') }, { deadlineMs: 2000 }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toBe('internal error');
    expect(JSON.stringify(err)).not.toContain('postgres://');
  });

  it('maps an unreachable peer to UNAVAILABLE (retry later) without its address in the message', async () => {
    const dead = createGrpcClient(media.MediaServiceClient, '127.0.0.1:1');
    const err = (await callUnary(dead.storeImage.bind(dead), { data: Buffer.from('x') }, { deadlineMs: 500 }).catch((e: unknown) => e)) as AppError;
    dead.close();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', message: 'a backend service is unavailable; retry later', details: { retryAfterSeconds: 1 } });
    expect(String((err.cause as Error).message)).toContain('127.0.0.1:1');
  });

  it('maps a missed deadline to DEADLINE_EXCEEDED and other transport failures to INTERNAL', async () => {
    const late = (await callUnary(client.storeImage.bind(client), { data: Buffer.from('slow') }, { deadlineMs: 20 }).catch((e: unknown) => e)) as AppError;
    expect(late).toMatchObject({ code: 'DEADLINE_EXCEEDED', message: 'a backend service did not answer in time; retry later' });
    const small = createGrpcClient(media.MediaServiceClient, address, { maxMessageBytes: 16 });
    const tooLarge = (await callUnary(small.storeImage.bind(small), { data: Buffer.alloc(64) }, { deadlineMs: 2000 }).catch((e: unknown) => e)) as AppError;
    small.close();
    expect(tooLarge).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
  });
});

describe('gRPC helpers over a real server: streams, health and shutdown', () => {
  it('streams messages and errors', async () => {
    const chunks: Buffer[] = [];
    for await (const m of callStream(client.getImage.bind(client), { key: 'k' }, { deadlineMs: 2000 })) chunks.push(m.chunk);
    expect(Buffer.concat(chunks).toString()).toBe('abcdef');
    const run = async () => {
      for await (const _ of callStream(client.getImage.bind(client), { key: 'missing' }, { deadlineMs: 2000 })) void _;
    };
    await expect(run()).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'image missing not found' });
  });

  it('reports health and finishes in-flight calls on shutdown', async () => {
    const health = createHealthChecker(address);
    expect(await health.isServing(MEDIA_SERVICE_NAME, 1000)).toBe(true);
    expect(await health.isServing('nope', 1000)).toBe(false);
    const inFlight = callUnary(client.storeImage.bind(client), { data: Buffer.from('slow') }, { deadlineMs: 5000 });
    await new Promise((r) => setTimeout(r, 50));
    const stopping = server.shutdown(3000);
    expect(await health.isServing('', 500)).toBe(false);
    release();
    await expect(inFlight).resolves.toMatchObject({ key: 'k' });
    await stopping;
    health.close();
  });
});

describe('timestamps', () => {
  it('formats RFC 3339 UTC with nine fractional digits', () => {
    expect(formatTimestamp(timestampFromMicros(1_763_713_204_123_456n))).toBe('2025-11-21T08:20:04.123456000Z');
    expect(formatTimestamp(timestampFromMicros(0n))).toBe('1970-01-01T00:00:00.000000000Z');
    expect(formatTimestamp(timestampFromMicros(-1n))).toBe('1969-12-31T23:59:59.999999000Z');
  });

  it('formats each value right whatever came before it (the date of a second is kept between calls)', () => {
    const micros = [1_763_713_204_000_001n, 1_763_713_204_999_999n, 1_763_713_204_999_999n, 1_763_713_205_000_000n, 1_763_713_204_500_000n, 86_400_000_000n];
    const expected = [
      '2025-11-21T08:20:04.000001000Z',
      '2025-11-21T08:20:04.999999000Z',
      '2025-11-21T08:20:04.999999000Z',
      '2025-11-21T08:20:05.000000000Z',
      '2025-11-21T08:20:04.500000000Z',
      '1970-01-02T00:00:00.000000000Z',
    ];
    expect(micros.map((us) => formatTimestamp(timestampFromMicros(us)))).toEqual(expected);
  });
});

describe('server streaming', () => {
  it('releases a handler blocked on back-pressure when the caller cancels', async () => {
    let released = false;
    const server = createGrpcServer({ logger, maxMessageBytes: 8 * 1024 * 1024 });
    server.addService<media.MediaServiceServer>(media.MediaServiceService, {
      storeImageStream: () => Promise.reject(new Error('not in this test')),
      storeImage: async () => {
        throw new AppError('UNIMPLEMENTED', 'not here');
      },
      async *getImage() {
        try {
          for (let i = 0; i < 1000; i++) yield { contentType: 'image/png', sizeBytes: '0', chunk: Buffer.alloc(1024 * 1024) };
        } finally {
          released = true;
        }
      },
    });
    const port = await server.listen('127.0.0.1:0');
    const client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`, { maxMessageBytes: 8 * 1024 * 1024 });
    for await (const _ of callStream(client.getImage.bind(client), { key: 'k' }, { deadlineMs: 5000 })) break;
    await expect.poll(() => released, { timeout: 2000 }).toBe(true);
    client.close();
    await server.shutdown(500);
  });

  it('cancels a stalled stream as soon as the signal aborts', async () => {
    let cancelled = false;
    const server = createGrpcServer({ logger });
    server.addService<media.MediaServiceServer>(media.MediaServiceService, {
      storeImageStream: () => Promise.reject(new Error('not in this test')),
      storeImage: async () => {
        throw new AppError('UNIMPLEMENTED', 'not here');
      },
      async *getImage(_request, ctx) {
        yield { contentType: 'image/png', sizeBytes: '1', chunk: Buffer.from('a') };
        // A stalled backend: nothing more until the caller cancels.
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        cancelled = true;
      },
    });
    const port = await server.listen('127.0.0.1:0');
    const client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`);
    const controller = new AbortController();
    const received: string[] = [];
    const reading = (async () => {
      for await (const m of callStream(client.getImage.bind(client), { key: 'k' }, { deadlineMs: 60_000, signal: controller.signal })) received.push(m.chunk.toString());
    })();
    await expect.poll(() => received.length).toBe(1);
    controller.abort();
    await expect(reading).resolves.toBeUndefined();
    await expect.poll(() => cancelled, { timeout: 2000 }).toBe(true);
    client.close();
    await server.shutdown(500);
  });
});
