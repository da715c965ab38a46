/**
 * Lanes: RecordEvents batches as messages on open RecordEventsStream streams (grpc-lanes-server.ts,
 * grpc-lanes-client.ts), over a real grpc-js server and client.
 */
import { EventEmitter } from 'node:events';
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError, fromServiceError, registry } from '../src/contract/index.js';
import { createGrpcClient, createGrpcServer, createLanePool, type AsyncServiceImpl, type CallContext, type GrpcServer } from '../src/runtime/index.js';

type Impl = AsyncServiceImpl<registry.RegistryServiceServer>;
type Batch = registry.RecordEventsStreamRequest;
type Answer = registry.RecordEventsStreamResponse;
type Handler = (batch: registry.RecordEventsRequest, ctx: CallContext) => Promise<registry.RecordEventsResponse>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A batch named by its first request id; the fake answers with that name as an item error's message. */
const batch = (name: string): Batch => ({ batch: { events: [], requestIds: [name] } });
const nameOf = (answer: Answer): string | undefined => answer.batch?.results[0]?.error?.message;
const echo: Handler = async (b) => ({ results: [{ error: { code: 3, message: b.requestIds[0] ?? '', field: '', rule: '' } }] });

const running: Array<{ server: GrpcServer | undefined; client: registry.RegistryServiceClient }> = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.close();
    await server?.shutdown(1000);
  }
});

/** A registry server whose lane runs `handler` (every other method refuses), and a client of it. */
async function start(handler: Handler, maxConnectionAgeMs?: number) {
  const streams = new Set<CallContext>();
  const refuse = async () => {
    throw new AppError('UNIMPLEMENTED', 'not in this test');
  };
  const impl = Object.fromEntries(Object.keys(registry.RegistryServiceService).map((name) => [name, refuse])) as unknown as Impl;
  impl.recordEventsStream = async (request, ctx) => {
    streams.add(ctx);
    return { batch: await handler(request.batch!, ctx) };
  };
  const server = createGrpcServer({ logger: pino({ level: 'silent' }), maxConnectionAgeMs });
  server.addService<registry.RegistryServiceServer>(registry.RegistryServiceService, impl);
  const port = await server.listen('127.0.0.1:0');
  const client = createGrpcClient(registry.RegistryServiceClient, `127.0.0.1:${port}`);
  running.push({ server, client });
  return { server, client, port, streams, open: () => client.recordEventsStream() };
}

describe('lanes over a real server', () => {
  it('answers every batch with its own answer, and reuses its streams', async () => {
    const { open, streams } = await start(async (b) => {
      await sleep(Math.random() * 5);
      return echo(b, undefined as never);
    });
    const pool = createLanePool(open, { deadlineMs: 5000 });
    const names = Array.from({ length: 40 }, (_, i) => `b${i}`);
    for (let i = 0; i < names.length; i += 4) {
      const answers = await Promise.all(names.slice(i, i + 4).map((name) => pool.send(batch(name))));
      expect(answers.map(nameOf)).toEqual(names.slice(i, i + 4));
    }
    expect(pool.size()).toBeLessThanOrEqual(4);
    expect(streams.size).toBeLessThanOrEqual(4);
  });

  it('fails a batch whose handler failed with that status alone; the next batch gets a new lane', async () => {
    const { open } = await start(async (b, ctx) => {
      if (b.requestIds[0] === 'fail') throw new AppError('UNAVAILABLE', 'the database is unreachable', {});
      return echo(b, ctx);
    });
    const pool = createLanePool(open, { deadlineMs: 5000 });
    const [failed, passed] = await Promise.allSettled([pool.send(batch('fail')), pool.send(batch('ok'))]);
    expect(failed.status === 'rejected' && (failed.reason as AppError).code).toBe('UNAVAILABLE');
    expect(failed.status === 'rejected' && (failed.reason as AppError).message).toMatch(/database is unreachable/);
    expect(passed.status === 'fulfilled' && nameOf(passed.value)).toBe('ok');
    expect(nameOf(await pool.send(batch('after')))).toBe('after');
  });

  it('fails a batch past its deadline as a unary call would, and never reads its late answer as another batch\'s', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { open } = await start(async (b, ctx) => {
      if (b.requestIds[0] === 'slow') await held;
      return echo(b, ctx);
    });
    // The slow batch is held until released, so it always reaches the deadline; the others have
    // a deadline no busy machine reaches.
    const pool = createLanePool(open, { deadlineMs: 2000 });
    const expected = fromServiceError(Object.assign(new Error('Deadline exceeded'), { code: 4, details: 'Deadline exceeded', metadata: undefined as never }));
    await expect(pool.send(batch('slow'))).rejects.toMatchObject({ code: expected.code, message: expected.message });
    release();
    const answers = await Promise.all(['x', 'y', 'z'].map((name) => pool.send(batch(name))));
    expect(answers.map(nameOf)).toEqual(['x', 'y', 'z']);
  });

  it('at shutdown answers the batch in flight, then ends its lanes so the server stops at once', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const { server, open } = await start(async (b, ctx) => {
      if (b.requestIds[0] === 'held') {
        started();
        await held;
      }
      return echo(b, ctx);
    });
    const pool = createLanePool(open, { deadlineMs: 10_000 });
    await Promise.all(['a', 'b', 'c'].map((name) => pool.send(batch(name)))); // idle lanes, open
    const answer = pool.send(batch('held'));
    await inFlight;
    const forced = vi.spyOn(server.server, 'forceShutdown');
    const stopped = server.shutdown(20_000);
    await sleep(100);
    release();
    expect(nameOf(await answer)).toBe('held');
    await stopped;
    // Stopped gracefully, not by the shutdown timeout cancelling what was left: every lane ended.
    expect(forced).not.toHaveBeenCalled();
    await expect(pool.send(batch('late'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

});

describe('lanes and the connections under them', () => {
  it('keeps every batch answered across the server\'s connection age (GOAWAY), keepalive pings included', async () => {
    const { port, streams } = await start(echo, 300);
    // grpc-js drops a closing connection that still has streams when its next keepalive ping goes
    // out there: pings every 50 ms make that happen in this test if lanes stayed on the old connection.
    const client = new registry.RegistryServiceClient(`127.0.0.1:${port}`, credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 50,
      'grpc.keepalive_timeout_ms': 1000,
    });
    running.push({ server: undefined, client });
    const pool = createLanePool(() => client.recordEventsStream(), { deadlineMs: 5000, channel: client.getChannel() });
    // Batches go on until the lanes followed the new connections (4 at a time, GOAWAY every 300 ms or
    // so) at least twice, and at least 100 were answered; a generous deadline ends a run that never gets there.
    const done = () => sent > 100 && streams.size > 8;
    const until = Date.now() + 20_000;
    let sent = 0;
    const caller = async (n: number) => {
      for (let i = 0; !done() && Date.now() < until; i++) {
        const name = `c${n}-${i}`;
        expect(nameOf(await pool.send(batch(name)))).toBe(name);
        sent++;
        await sleep(5);
      }
    };
    await Promise.all([0, 1, 2, 3].map(caller));
    expect(sent).toBeGreaterThan(100);
    expect(streams.size).toBeGreaterThan(8);
  });

  it('replaces an idle lane past its age with a new stream', async () => {
    const { open, streams } = await start(echo);
    const pool = createLanePool(open, { deadlineMs: 5000, maxLaneAgeMs: 50 });
    expect(nameOf(await pool.send(batch('first')))).toBe('first');
    await sleep(80);
    expect(nameOf(await pool.send(batch('second')))).toBe('second');
    expect(streams.size).toBe(2);
    expect(pool.size()).toBe(1);
  });
});

/** A stream that ends with OK (the server did not take the request) or answers, as told (at each write). */
function fakeStream(behaviour: 'ends' | 'answers' | (() => 'ends' | 'answers')): ClientDuplexStream<Batch, Answer> {
  const stream = new EventEmitter() as EventEmitter & Record<string, unknown>;
  stream.write = (request: Batch) => {
    setImmediate(() => {
      if ((typeof behaviour === 'function' ? behaviour() : behaviour) === 'answers') stream.emit('data', { batch: { results: [{ error: { code: 3, message: request.batch?.requestIds[0] ?? '', field: '', rule: '' } }] } } satisfies Answer);
      else stream.emit('status', { code: 0, details: 'OK', metadata: undefined });
    });
    return true;
  };
  stream.end = () => stream;
  stream.cancel = () => {};
  return stream as unknown as ClientDuplexStream<Batch, Answer>;
}

describe('a batch the server did not take', () => {
  it('is sent again, on another lane', async () => {
    const plan: Array<'ends' | 'answers'> = ['ends', 'answers'];
    let opened = 0;
    const pool = createLanePool(() => fakeStream(plan[opened++] ?? 'answers'), { deadlineMs: 1000 });
    const answer = await pool.send(batch('again'));
    expect(nameOf(answer)).toBe('again');
    expect(opened).toBe(2);
  });

  it('is never resent on an idle lane, which may sit on the same closing server', async () => {
    // Lanes opened before the server started closing end without taking anything from then on.
    let closing = false;
    let opened = 0;
    const pool = createLanePool(() => {
      opened++;
      const onClosingServer = !closing;
      return fakeStream(() => (onClosingServer && closing ? 'ends' : 'answers'));
    }, { deadlineMs: 1000 });
    await Promise.all([pool.send(batch('a')), pool.send(batch('b'))]);
    expect(pool.size()).toBe(2);
    closing = true;
    expect(nameOf(await pool.send(batch('c')))).toBe('c');
    expect(opened).toBe(3);
    expect(pool.size()).toBe(1);
  });

  it('fails as UNAVAILABLE when three lanes in a row did not take it', async () => {
    let opened = 0;
    const pool = createLanePool(() => {
      opened++;
      return fakeStream('ends');
    }, { deadlineMs: 1000 });
    await expect(pool.send(batch('thrice'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(opened).toBe(3);
    expect(pool.size()).toBe(0);
  });
});
