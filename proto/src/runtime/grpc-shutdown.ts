import type { Server } from '@grpc/grpc-js';
import type { Logger } from 'pino';

/**
 * Ends a server whose health already says NOT_SERVING: keeps answering for `drainDelayMs` (callers
 * and endpoint lists notice the state before the listener goes away), then lets in-flight calls
 * finish for up to `timeoutMs`, then cancels the rest (tryShutdown alone can hang on stuck calls).
 * `beforeShutdown` runs when the listener is about to go (the server's lanes end then).
 */
export async function drainAndShutdown(server: Server, logger: Logger, timeoutMs: number, drainDelayMs = 0, beforeShutdown?: () => void): Promise<void> {
  if (drainDelayMs > 0) {
    logger.info({ drainDelayMs }, 'NOT_SERVING: still answering while callers move away');
    await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
  }
  beforeShutdown?.();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'grpc shutdown timed out, cancelling remaining calls');
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
