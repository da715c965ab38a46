import { addReflection, createGrpcServer, MEDIA_PROTO, type GrpcServer, type Logger } from '@dynamic-events/proto/runtime';
import { media } from '@dynamic-events/proto';
import type { Registry } from 'prom-client';
import type { MediaConfig } from './config.js';
import { createGetImage } from './domain/get-image.js';
import { createStoreImage } from './domain/store-image.js';
import { createMediaMetrics, type MediaMetrics } from './metrics.js';
import { createMediaRpc } from './rpc/media.js';
import type { ImageStorage } from './storage/types.js';

/** What createServer needs; main.ts builds it from the config. */
interface MediaServerDeps {
  logger: Logger;
  storage: ImageStorage;
  /** Media and grpc_server_* metrics are registered here (the registry the metrics server exposes). */
  registry: Registry;
  config: Pick<MediaConfig, 'maxImageBytes' | 'maxImagePixels' | 'grpcMaxMessageBytes'>;
  /** How often storage is checked while running (default 10 s). */
  storageCheckIntervalMs?: number;
}

/** The media gRPC server, wired but not yet listening. */
export interface MediaServer {
  readonly grpc: GrpcServer;
  readonly metrics: MediaMetrics;
  /** Binds, then checks storage now and periodically; health follows each result. */
  listen(address: string): Promise<number>;
  /** Checks storage now and flips health to match; resolves whether storage is usable. */
  checkStorage(): Promise<boolean>;
  /** NOT_SERVING, still answering for `drainDelayMs`, in-flight calls finish (up to `timeoutMs`), then storage is released. */
  shutdown(timeoutMs: number, drainDelayMs?: number): Promise<void>;
}

/** Wires rpc → domain → storage into a gRPC server with health, reflection and metrics. */
export function createServer(deps: MediaServerDeps): MediaServer {
  const { logger, storage, config } = deps;
  const metrics = createMediaMetrics(deps.registry);
  const grpc = createGrpcServer({ logger, maxMessageBytes: config.grpcMaxMessageBytes, metricsRegistry: deps.registry });
  const rpc = createMediaRpc({
    storeImage: createStoreImage({
      storage,
      metrics,
      maxImageBytes: config.maxImageBytes,
      maxImagePixels: config.maxImagePixels,
    }),
    getImage: createGetImage({ storage }),
  });
  grpc.addService<media.MediaServiceServer>(media.MediaServiceService, rpc);
  addReflection(grpc.server, MEDIA_PROTO);

  let usable: boolean | undefined;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;

  async function runCheck(): Promise<boolean> {
    let ok = true;
    try {
      await storage.check();
    } catch (err) {
      ok = false;
      if (usable !== false) logger.error({ err, storage: storage.description }, 'storage unusable: media NOT_SERVING');
    }
    if (ok && usable !== true) logger.info({ storage: storage.description }, 'storage usable: media SERVING');
    usable = ok;
    metrics.storageUp.set(ok ? 1 : 0);
    // Once draining has begun, a passing check must not advertise the server again.
    if (!stopping) grpc.setServing(ok);
    return ok;
  }

  function checkStorage(): Promise<boolean> {
    // One check at a time: a slow backend must not pile up probes.
    running ??= runCheck().finally(() => (running = undefined));
    return running;
  }

  return {
    grpc,
    metrics,
    checkStorage,
    async listen(address) {
      const port = await grpc.listen(address);
      // Not awaited: a slow backend must not delay start-up (or signal handling); health says when it is ready.
      void checkStorage();
      timer = setInterval(() => void checkStorage(), deps.storageCheckIntervalMs ?? 10_000);
      timer.unref();
      return port;
    },
    async shutdown(timeoutMs, drainDelayMs) {
      stopping = true;
      clearInterval(timer);
      await grpc.shutdown(timeoutMs, drainDelayMs);
      await storage.close();
    },
  };
}
