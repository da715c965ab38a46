/**
 * A lane's caller that writes and never reads: the server stops taking its messages at the lane's
 * bound and at its connection's (lane-limits.ts), rather than handling and buffering everything it
 * is sent, and while its answers wait for the caller to read. Real grpc-js server; the caller is a
 * grpc-js client, or a raw HTTP/2 stream where grpc-js's read-ahead would hide the answers
 * (test/support/grpc-non-reader.ts). The server's own counts say how much it took.
 */
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, registry } from '../src/contract/index.js';
import { createGrpcClient, createGrpcServer, type AsyncServiceImpl, type GrpcServer } from '../src/runtime/index.js';
import { openNonReader, stoppedMoving } from '../../test/support/grpc-non-reader.js';

type Impl = AsyncServiceImpl<registry.RegistryServiceServer>;
type Lane = ClientDuplexStream<registry.RecordEventsStreamRequest, registry.RecordEventsStreamResponse>;

const running: Array<{ server: GrpcServer; client: registry.RegistryServiceClient }> = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.close();
    await server.shutdown(500);
  }
});

/** A batch of about 16 KB (one request id that long): the messages. */
const batch = (n: number): registry.RecordEventsStreamRequest => ({ batch: { events: [], requestIds: [`${n}-`.padEnd(16_000, 'x')] } });

/** A server whose lane runs `answer` for each message, counting the messages it was handed. */
async function start(answer: (n: number) => Promise<registry.RecordEventsResponse>, limits: { laneMessages?: number; connectionMessages?: number } = {}) {
  let handled = 0;
  const refuse = async () => {
    throw new AppError('UNIMPLEMENTED', 'not in this test');
  };
  const impl = Object.fromEntries(Object.keys(registry.RegistryServiceService).map((name) => [name, refuse])) as unknown as Impl;
  impl.recordEventsStream = async () => ({ batch: await answer(++handled) });
  const server = createGrpcServer({ logger: pino({ level: 'silent' }), ...limits });
  server.addService<registry.RegistryServiceServer>(registry.RegistryServiceService, impl);
  const port = await server.listen('127.0.0.1:0');
  const client = createGrpcClient(registry.RegistryServiceClient, `127.0.0.1:${port}`);
  running.push({ server, client });
  return { server, client, port, handled: () => handled };
}

/** Writes `count` batches on a lane that never reads its answers; resolves once its writes stopped moving (the server took all it will). */
async function writeWithoutReading(lane: Lane, count: number): Promise<void> {
  lane.on('error', () => {}); // cancelled at the end of each test
  lane.pause();
  for (let n = 0; n < count; n++) lane.write(batch(n));
  await stoppedMoving(() => lane.writableLength);
}

describe('lanes whose caller writes and never reads', () => {
  it('stops taking messages at the lane bound while they are being handled', async () => {
    const { client, handled, server } = await start(() => new Promise(() => {}), { laneMessages: 8 });
    const lane = client.recordEventsStream();
    await writeWithoutReading(lane, 400);
    expect(handled()).toBe(8);
    expect(server.laneLimits.connectionMessages).toBeGreaterThanOrEqual(8);
    lane.cancel();
  });

  it('stops at the connection bound across its lanes', async () => {
    const { client, handled } = await start(() => new Promise(() => {}), { laneMessages: 8, connectionMessages: 10 });
    const lanes = [client.recordEventsStream(), client.recordEventsStream()];
    await Promise.all(lanes.map((lane) => writeWithoutReading(lane, 200)));
    expect(handled()).toBe(10);
    for (const lane of lanes) lane.cancel();
  });

  it('stops taking messages while an answer waits for the caller to read, however fast they are handled', async () => {
    // Answers of 32 KiB, each at once: the lane and connection bounds never bind, the answers pile up.
    const answer = { results: [{ error: { code: 3, message: 'x'.repeat(32 * 1024), field: '', rule: '' } }] };
    const { handled, port } = await start(async () => answer, { laneMessages: 8, connectionMessages: 64 });
    const caller = openNonReader(`127.0.0.1:${port}`, registry.RegistryServiceService.recordEventsStream.path);
    try {
      const request = registry.RegistryServiceService.recordEventsStream.requestSerialize({ batch: { events: [], requestIds: [] } });
      void caller.feed(2000, () => request);
      await stoppedMoving(handled);
      // The caller's window takes two answers and grpc-js's write buffer 16 before a write asks to wait: about 20, not 2,000.
      expect(handled()).toBeLessThanOrEqual(100);
    } finally {
      caller.close();
    }
  });
});
