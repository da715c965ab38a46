import type { Logger } from 'pino';
import { pgErrorFields } from '../db/pool.js';

/** A pass run in the background at an interval (every replica runs it; their statements skip each other's rows). */
export interface BackgroundJob<T> {
  start(): void;
  stop(): void;
  /** One pass now; while one runs, callers share it (never two at once in a process: a slow pass delays the next). */
  runOnce(): Promise<T>;
}

/**
 * Runs `pass` every `intervalMs` (the timer never keeps the process alive). A failed pass is one
 * warning with the database's error fields (never values) and is tried again at the next tick.
 */
export function createBackgroundJob<T>(options: { pass: () => Promise<T>; intervalMs: number; logger: Logger; failure: string; onStop?: () => void }): BackgroundJob<T> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<T> | undefined;
  const runOnce = (): Promise<T> => (running ??= options.pass().finally(() => (running = undefined)));
  return {
    runOnce,
    start() {
      timer = setInterval(() => {
        runOnce().catch((err: unknown) => options.logger.warn({ error: pgErrorFields(err) }, options.failure));
      }, options.intervalMs);
      timer.unref();
    },
    stop() {
      options.onStop?.();
      clearInterval(timer);
    },
  };
}

/**
 * Calls `step` (one short DELETE of at most `batch` rows) until a batch comes back short, reporting
 * each count; `pauseMs` between batches works a large backlog off without hogging the database,
 * and `stopped` ends the loop early at shutdown. Resolves with the rows removed.
 */
export async function deleteInBatches(
  step: () => Promise<number>,
  batch: number,
  removed: (count: number) => void,
  { pauseMs = 0, stopped = () => false }: { pauseMs?: number; stopped?: () => boolean } = {},
): Promise<number> {
  let total = 0;
  while (!stopped()) {
    const count = await step();
    total += count;
    removed(count);
    if (count < batch) break;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return total;
}
