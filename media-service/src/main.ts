/** Entry point: the only file that reads the environment or touches the process. */
import { createLogger, createMetricsServer, giveBuffersHeadroom, hostPort, onShutdownSignal, runMain } from '@dynamic-events/proto/runtime';
import { loadConfig } from './config.js';
import { createServer } from './server.js';
import { createFilesystemStorage } from './storage/filesystem.js';
import { createS3Storage } from './storage/s3.js';

const SERVICE = 'media-service';

// Image Buffers in flight would otherwise start a full GC every ~150 ms (see heap-headroom.ts).
giveBuffersHeadroom();

// Until the config is known (a bad LOG_LEVEL included), start-up failures log at the default level.
runMain(createLogger(SERVICE), async () => {
  const config = loadConfig(process.env);
  const logger = createLogger(SERVICE, config.logLevel);
  const storage = config.storage.kind === 's3' ? createS3Storage(config.storage) : createFilesystemStorage(config.storage);
  const metricsServer = createMetricsServer(logger);
  const metricsPort = await metricsServer.listen(config.metricsPort, config.metricsHost);
  const server = createServer({ logger, storage, registry: metricsServer.registry, config });
  const port = await server.listen(hostPort(config.grpcHost, config.grpcPort));
  logger.info(
    { host: config.grpcHost, port, metricsPort, storage: storage.description, maxImageBytes: config.maxImageBytes, maxImagePixels: config.maxImagePixels },
    `${SERVICE} listening on ${hostPort(config.grpcHost, port)}`,
  );
  // Under `npm start` the launcher waits for this message, never for whatever answers on the port.
  process.send?.({ listening: { port, metricsPort } });
  onShutdownSignal(logger, async () => {
    await server.shutdown(config.shutdownTimeoutMs, config.drainDelayMs);
    // Last, so a scrape during the drain still answers.
    await metricsServer.close();
  });
});
