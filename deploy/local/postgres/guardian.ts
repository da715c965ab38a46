/**
 * Keeps the all-in-one stack's embedded Postgres: started by the launcher (npm start without
 * DATABASE_URL) as a child with an IPC channel, it starts the cluster under DATA_DIR, sends the
 * launcher its URL, and stops the cluster when asked, on a signal, or when the channel closes: the
 * launcher is gone, even SIGKILLed, so the cluster never outlives the stack. Its own process group
 * (the launcher spawns it detached) keeps a terminal's Ctrl-C from reaching Postgres before the
 * services have drained.
 */
import { createLogger } from '@dynamic-events/proto/runtime';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';

const logger = createLogger('embedded-postgres', process.env.LOG_LEVEL ?? 'info');
let cluster: EmbeddedPostgres | undefined;
let stopping = false;

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Still starting: the start path stops the cluster as soon as it is up, never leaving it behind.
  if (!cluster) return;
  await cluster.stop().catch((err: unknown) => logger.error({ err }, 'stopping embedded Postgres failed'));
  process.exit(0);
}

process.on('message', (message) => message === 'stop' && void stop());
process.on('disconnect', () => void stop());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop());

try {
  cluster = await startEmbeddedPostgres({ dataDir: process.env.DATA_DIR || './.data', logger });
  if (stopping) {
    await cluster.stop();
    process.exit(0);
  }
  // The URL holds the cluster's password: it goes to the launcher only, never to a log.
  process.send?.({ url: cluster.url });
} catch (err) {
  logger.error({ err }, 'embedded Postgres did not start');
  process.exit(1);
}
