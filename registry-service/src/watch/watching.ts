import type pg from 'pg';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { createCommitFeed } from './commit-feed.js';
import { createCommitHorizon, type CommitHorizon } from './commit-horizon.js';
import { createCommitSignals } from './commit-signals.js';
import { createWatch, type Watch } from './watch.js';

interface WatchingOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** A watch sends a keep-alive after this long without a message. */
  keepAliveMs: number;
  /** Polls at least this often while someone watches (default 500 ms). */
  fallbackPollMs?: number;
}

/** Everything Watch needs, wired: the horizon, the shared feed, commit signals (LISTEN/NOTIFY). */
export interface Watching {
  watch: Watch;
  horizon: CommitHorizon;
  /** For the writer: a statement committed. */
  committed(): void;
  /** Listens for other replicas' commits (LISTEN/NOTIFY), as an open watch does: webhook delivery follows them too. */
  listen(): void;
  /** Ends every open watch (UNAVAILABLE: its client resumes on another replica) and stops listening. */
  close(): Promise<void>;
}

export function createWatching(options: WatchingOptions): Watching {
  const { pool, logger, metrics } = options;
  const horizon = createCommitHorizon({ pool, logger, metrics, fallbackPollMs: options.fallbackPollMs });
  const feed = createCommitFeed({ pool, horizon, metrics });
  const signals = createCommitSignals({ pool, horizon, logger });
  const inner = createWatch(feed, { keepAliveMs: options.keepAliveMs });
  const watch: Watch = async function* (request, signal) {
    signals.listen();
    metrics.watchStreams.inc();
    try {
      yield* inner(request, signal);
    } finally {
      metrics.watchStreams.dec();
    }
  };
  return {
    watch,
    horizon,
    committed: () => signals.committed(),
    listen: () => signals.listen(),
    async close() {
      feed.close();
      await signals.close();
    },
  };
}
