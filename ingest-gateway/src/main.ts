import { createServer } from 'node:http';
import { createLogger, onShutdownSignal, runMain } from '@dynamic-events/proto';
import { createApp } from './app.js';
import { createMediaClient } from './clients/media.js';
import { createRegistryClient } from './clients/registry.js';
import { loadConfig } from './config.js';
import { closeGracefully, listen } from './http-server.js';
import { createMetrics } from './metrics.js';

/** gRPC envelope headroom on top of the largest image (must match the media server). */
const GRPC_ENVELOPE_BYTES = 1024 * 1024;
/** A GetImage stream lasts as long as a slow HTTP client takes to read the image. */
const MEDIA_STREAM_DEADLINE_MS = 5 * 60_000;

const bootLogger = createLogger('ingest-gateway');

runMain(bootLogger, async () => {
  const config = loadConfig(process.env);
  const logger = createLogger('ingest-gateway', config.logLevel);

  const registry = createRegistryClient(config.registryAddr, { deadlineMs: config.grpcDeadlineMs });
  const media = createMediaClient(config.mediaAddr, {
    deadlineMs: config.grpcDeadlineMs,
    streamDeadlineMs: MEDIA_STREAM_DEADLINE_MS,
    maxMessageBytes: config.maxImageBytes + GRPC_ENVELOPE_BYTES,
  });
  const draining = new AbortController();
  const app = createApp({ config, logger, registry, media, metrics: createMetrics(), draining: draining.signal });

  const server = createServer(app.callback());
  const port = await listen(server, config.port, config.host);
  logger.info(
    {
      url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
      publicBaseUrl: config.publicBaseUrl,
      api: `${config.publicBaseUrl}/api/${config.platformSegment}/dh/dynamic-events`,
      registry: config.registryAddr,
      media: config.mediaAddr,
      auth: config.dynamicEventsToken === undefined ? 'none' : 'bearer token',
    },
    'ingest-gateway listening',
  );

  onShutdownSignal(logger, async () => {
    // Readiness goes false first, so a load balancer stops sending before we stop accepting.
    draining.abort();
    await closeGracefully(server, config.shutdownTimeoutMs, logger);
    registry.close();
    media.close();
  });
});
