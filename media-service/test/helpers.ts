import { callStream, callUnary, createGrpcClient, type Logger } from '@dynamic-events/proto/runtime';
import { media, type AppError } from '@dynamic-events/proto';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { loadConfig } from '../src/config.js';
import { createServer, type MediaServer } from '../src/server.js';
import type { ImageStorage } from '../src/storage/types.js';

export const silentLogger = pino({ level: 'silent' });

/** A media server on an ephemeral loopback port with a generated client sized for large images. */
export interface RunningMedia {
  server: MediaServer;
  address: string;
  client: media.MediaServiceClient;
  config: ReturnType<typeof loadConfig>;
  store(data: Buffer): Promise<media.StoreImageResponse>;
  /** Collects every message of GetImage. */
  get(key: string): Promise<media.GetImageResponse[]>;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  logger?: Logger;
  storageCheckIntervalMs?: number;
}

export async function startMedia(storage: ImageStorage, options: StartOptions = {}): Promise<RunningMedia> {
  const config = loadConfig({ ...options.env });
  const server = createServer({
    logger: options.logger ?? silentLogger,
    storage,
    registry: new Registry(),
    config,
    ...(options.storageCheckIntervalMs === undefined ? {} : { storageCheckIntervalMs: options.storageCheckIntervalMs }),
  });
  const port = await server.listen('127.0.0.1:0');
  await server.checkStorage(); // joins the check listen() started
  const address = `127.0.0.1:${port}`;
  const client = createGrpcClient(media.MediaServiceClient, address, { maxMessageBytes: config.grpcMaxMessageBytes });
  return {
    server,
    address,
    client,
    config,
    store: (data) => callUnary(client.storeImage.bind(client), { data }, { deadlineMs: 20_000 }),
    async get(key) {
      const messages: media.GetImageResponse[] = [];
      for await (const message of callStream(client.getImage.bind(client), { key }, { deadlineMs: 20_000 })) messages.push(message);
      return messages;
    },
    async stop() {
      client.close();
      await server.shutdown(2000);
    },
  };
}

/** The AppError a call rejected with. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (err: unknown) => err as AppError,
  );
}
