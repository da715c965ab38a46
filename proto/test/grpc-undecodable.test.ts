/**
 * A request message that is not protobuf at all (garbage bytes from a raw client) is the caller's
 * fault: INVALID_ARGUMENT, on the lanes (bidirectional) as on unary calls, never INTERNAL, which
 * alerts mean is ours. And no handler runs for it.
 */
import { Client, credentials, Metadata, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError, media, registry } from '../src/contract/index.js';
import { createGrpcServer, type GrpcServer } from '../src/runtime/index.js';

const running: Array<{ server: GrpcServer; client: Client }> = [];
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.close();
    await server.shutdown(1000);
  }
});

/** Bytes no protobuf decoder takes: wire type 6 does not exist, and a length runs past the end. */
const GARBAGE = [Buffer.from('not a protobuf message \xff\xfe', 'latin1'), Buffer.from([0x0a, 0xff, 0xff, 0x03, 0x01])];

/** A server with every method of both services counted and refused, and a raw client of it. */
async function start() {
  const handled: string[] = [];
  const impl = (definition: object) =>
    Object.fromEntries(
      Object.keys(definition).map((name) => [
        name,
        async () => {
          handled.push(name);
          throw new AppError('UNIMPLEMENTED', 'not in this test');
        },
      ]),
    );
  const server = createGrpcServer({ logger: pino({ level: 'silent' }) });
  server.addService<registry.RegistryServiceServer>(registry.RegistryServiceService, impl(registry.RegistryServiceService) as never);
  server.addService<media.MediaServiceServer>(media.MediaServiceService, impl(media.MediaServiceService) as never);
  const port = await server.listen('127.0.0.1:0');
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  running.push({ server, client });
  return { client, handled };
}

const raw = (bytes: Buffer) => bytes;

/** The status a bidirectional call ends with after `message` was written to it. */
function bidiStatus(client: Client, path: string, message: Buffer): Promise<Partial<ServiceError>> {
  return new Promise((resolve) => {
    const call = client.makeBidiStreamRequest(path, raw, raw, new Metadata(), { deadline: Date.now() + 5000 });
    call.on('data', () => {});
    call.on('error', (err: ServiceError) => resolve({ code: err.code, details: err.details }));
    call.on('status', (s: { code: number; details: string }) => {
      if (s.code === grpcStatus.OK) resolve({ code: s.code, details: s.details });
    });
    call.write(message);
  });
}

function unaryStatus(client: Client, path: string, message: Buffer): Promise<Partial<ServiceError>> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, raw, raw, message, new Metadata(), { deadline: Date.now() + 5000 }, (err) => resolve({ code: err?.code, details: err?.details }));
  });
}

const refused = { code: grpcStatus.INVALID_ARGUMENT, details: 'request is not a valid protobuf message' };

describe('garbage request bytes are INVALID_ARGUMENT', () => {
  it.each([
    ['RecordEventsStream', registry.RegistryServiceService.recordEventsStream.path],
    ['StoreImageStream', media.MediaServiceService.storeImageStream.path],
  ])('on the %s lane', async (_name, path) => {
    const { client, handled } = await start();
    for (const bytes of GARBAGE) expect(await bidiStatus(client, path, bytes)).toEqual(refused);
    expect(handled).toEqual([]);
  });

  it.each([
    ['RecordEvent', registry.RegistryServiceService.recordEvent.path],
    ['StoreImage', media.MediaServiceService.storeImage.path],
    ['ListEvents', registry.RegistryServiceService.listEvents.path],
  ])('on unary %s', async (_name, path) => {
    const { client, handled } = await start();
    for (const bytes of GARBAGE) expect(await unaryStatus(client, path, bytes)).toEqual(refused);
    expect(handled).toEqual([]);
  });
});
