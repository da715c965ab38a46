import type { Logger } from 'pino';

/**
 * Runs `shutdown` once on SIGTERM or SIGINT (or when the parent launcher's IPC channel closes, so
 * children never outlive `npm start`), then exits 0, or 1 if shutdown failed. A second signal
 * forces exit 1 immediately. Only a service's main.ts calls this (with runMain below): the process's
 * signals and exit belong to the entry point, never to the modules it wires together.
 */
export function onShutdownSignal(logger: Logger, shutdown: (reason: string) => Promise<void>): void {
  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) {
      logger.warn({ reason }, 'second signal: forcing exit');
      process.exit(1);
    }
    stopping = true;
    logger.info({ reason }, 'shutting down');
    shutdown(reason).then(
      () => {
        logger.info('shutdown complete');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (process.send) process.on('disconnect', () => stop('parent exited'));
}

/** Runs a service's async main; a start-up failure is logged and exits 1 (config errors included). */
export function runMain(logger: Logger, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  });
}
