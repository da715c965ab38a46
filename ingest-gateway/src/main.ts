import {
  createClientMetricsInterceptor,
  createLogger,
  createMetricsServer,
  giveBuffersHeadroom,
  hostPort,
  listenHttp,
  onShutdownSignal,
  runMain,
} from '@dynamic-events/proto/runtime';
import {
  IMAGE_ENVELOPE_BYTES,
  LIMITS,
} from '@dynamic-events/proto';
import { createRequestHandler } from './http/app.js';
import { loadConsoleBundle } from './http/console-bundle.js';
import { createMediaClient } from './clients/media.js';
import { RECORD_BATCH_MAX_BYTES } from './clients/record-batcher.js';
import { createRegistryClient } from './clients/registry.js';
import { createTokenClient } from './clients/tokens.js';
import { createWebhookClient } from './clients/webhooks.js';
import { loadConfig } from './config.js';
import { closeGracefully, configureKeepAlive, createHttpServer, handleClientErrors } from './http/http-server.js';
import { createMetrics, recordBatchMetrics, registerIngestQueueMetrics } from './metrics.js';
import { createTokenSync } from './tokens/token-sync.js';
import { createRateLimiter, createRedisClient } from './tokens/rate-limit.js';

/** A GetImage stream lasts as long as a slow HTTP client takes to read the image. */
const MEDIA_STREAM_DEADLINE_MS = 5 * 60_000;

const bootLogger = createLogger('ingest-gateway');

// Request bodies and images in flight would otherwise start a full GC every ~150 ms (see heap-headroom.ts).
giveBuffersHeadroom();

runMain(bootLogger, async () => {
  const config = loadConfig(process.env);
  const logger = createLogger('ingest-gateway', config.logLevel);

  const metricsServer = createMetricsServer(logger);
  const metricsPort = await metricsServer.listen(config.metricsPort, config.metricsHost);
  // One interceptor (one set of grpc_client_* metrics) shared by every channel.
  const interceptors = [createClientMetricsInterceptor(metricsServer.registry)];
  const metrics = createMetrics(metricsServer.registry);
  const registry = createRegistryClient(config.registryAddr, {
    deadlineMs: config.grpcDeadlineMs,
    interceptors,
    batching: {
      maxInFlight: config.recordConcurrency,
      maxBatchEvents: LIMITS.batchMaxEvents,
      maxBatchBytes: RECORD_BATCH_MAX_BYTES,
      maxQueuedEvents: config.ingestQueueMaxEvents,
      maxQueuedBytes: config.ingestQueueMaxBytes,
      ...recordBatchMetrics(metrics),
    },
  });
  registerIngestQueueMetrics(metricsServer.registry, registry, config.ingestQueueMaxEvents);
  const media = createMediaClient(config.mediaAddr, {
    deadlineMs: config.grpcDeadlineMs,
    streamDeadlineMs: MEDIA_STREAM_DEADLINE_MS,
    maxMessageBytes: config.maxImageBytes + IMAGE_ENVELOPE_BYTES,
    interceptors,
  });
  const tokenClient = createTokenClient(config.registryAddr, { deadlineMs: config.grpcDeadlineMs, credential: config.registryInternalToken, interceptors });
  const webhooks = createWebhookClient(config.registryAddr, { deadlineMs: config.grpcDeadlineMs, credential: config.registryInternalToken, interceptors });
  const tokenSync = createTokenSync({ client: tokenClient, intervalMs: config.tokenSyncIntervalMs, logger, metrics });
  // Not awaited: the gateway listens at once and /readyz waits for the first answer.
  void tokenSync.start();
  const draining = new AbortController();
  const tokens = { client: tokenClient, source: tokenSync };
  const redis = config.redisUrl === undefined ? undefined : createRedisClient(config.redisUrl);
  const limitRate = createRateLimiter({ redis, logger, metrics });
  // Read once, here, only when it is served (see console-bundle.ts); a missing build is logged there.
  const consoleBundle = config.adminToken === undefined ? undefined : loadConsoleBundle(config.consoleDir, logger);
  const handler = createRequestHandler({ config, logger, registry, media, metrics, tokens, webhooks, limitRate, draining: draining.signal, console: consoleBundle });

  const server = createHttpServer(handler, config);
  configureKeepAlive(server, config.keepAliveTimeoutMs);
  handleClientErrors(server, logger);
  const port = await listenHttp(server, config.port, config.host);
  logger.info(
    {
      url: `http://${hostPort(config.host, port)}`,
      metricsPort,
      publicBaseUrl: config.publicBaseUrl,
      api: `${config.publicBaseUrl}/api/${config.platformSegment}/dh/dynamic-events`,
      registry: config.registryAddr, media: config.mediaAddr,
      auth: config.dynamicEventsToken === undefined ? 'tokens from the registry' : 'bootstrap token and tokens from the registry',
      adminApi: config.adminToken === undefined ? 'off' : 'on',
      console: consoleBundle === undefined ? 'off (set ADMIN_TOKEN)' : consoleBundle.built ? `${config.publicBaseUrl}/api/${config.platformSegment}/dh/settings/dynamic-events/` : 'not built',
      rateLimits: config.redisUrl === undefined ? 'per gateway' : 'shared in redis',
    },
    'ingest-gateway listening',
  );
  // Under `npm start` the launcher waits for this message, never for whatever answers on the port.
  process.send?.({ listening: { port, metricsPort } });

  onShutdownSignal(logger, async () => {
    // Readiness goes false first and requests are still served for DRAIN_DELAY_MS, so endpoints and
    // the ingress stop sending here before the listener closes (they learn of it only after a probe).
    draining.abort();
    if (config.drainDelayMs > 0) {
      logger.info({ drainDelayMs: config.drainDelayMs }, '/readyz answers 503: still serving while traffic moves away');
      await new Promise((resolve) => setTimeout(resolve, config.drainDelayMs));
    }
    await closeGracefully(server, config.shutdownTimeoutMs, logger);
    tokenSync.stop();
    tokenClient.close();
    webhooks.close();
    redis?.disconnect();
    registry.close();
    media.close();
    await metricsServer.close();
  });
});
