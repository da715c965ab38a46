import type pg from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { pendingBacklog } from '../db/queries/webhook-deliveries.js';
import type { WebhookConfig } from '../config.js';
import type { CommitHorizon } from '../watch/commit-horizon.js';
import { createAddressGuard, type Resolver } from './address-guard.js';
import { createDeliveryLog, type DeliveryLog } from './delivery-log.js';
import { DeliveryRunner } from './delivery-runner.js';
import { createFanOut } from './fan-out.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { createSecretBox } from './secret-box.js';
import { createSender } from './sender.js';
import { createWebhookMetrics } from './webhook-metrics.js';
import { createWebhooks, type Webhooks } from './webhooks.js';

/** How long shutdown waits for attempts in flight (a receiver may take WEBHOOK_TIMEOUT_MS). */
const CLOSE_GRACE_MS = 2000;

/** The user-agent receivers see. */
const WEBHOOK_USER_AGENT = 'dynamic-events-webhooks/1';

interface WebhookServiceDeps {
  pool: pg.Pool;
  logger: Logger;
  horizon: CommitHorizon;
  /** Listens for other replicas' commits (the watch's LISTEN session). */
  listen: () => void;
  config: WebhookConfig;
  /** Where the delivery metrics go; omitted: a registry of their own (not exposed). */
  metricsRegistry: Registry;
  /** Stands in for DNS (tests: names resolve to loopback receivers without leaving the machine). */
  resolver?: Resolver;
  /** How often the sender looks again without a wake-up (default 1 s; tests make it short). */
  pollMs?: number;
}

export interface WebhookParts {
  webhooks: Webhooks;
  deliveries: DeliveryLog;
  /** Delivery from this replica; start it once the server listens. Undefined without WEBHOOK_SECRET_KEY or with WEBHOOK_DELIVERY=off. */
  runner: DeliveryRunner | undefined;
  close(): Promise<void>;
}

/** Wires webhooks: management, the delivery log, and this replica's share of delivery. */
export function createWebhookParts(deps: WebhookServiceDeps): WebhookParts {
  const { pool, logger, config } = deps;
  const guard = createAddressGuard({ allowedNetworks: config.allowedNetworks, resolver: deps.resolver });
  const secrets = config.secretKey && createSecretBox(config.secretKey);
  const metrics = createWebhookMetrics(deps.metricsRegistry, () => pendingBacklog(pool));
  // Management wakes this replica's sender (made below, when there is a key) after each change.
  const wake = { runner: undefined as DeliveryRunner | undefined };
  const changed = () => wake.runner?.wake();
  const webhooks = createWebhooks({ pool, guard, secrets, changed, horizon: deps.horizon });
  const deliveries = createDeliveryLog({ pool, changed });
  if (!secrets || !config.deliver) return { webhooks, deliveries, runner: undefined, close: async () => {} };
  const sender = createSender({ guard, timeoutMs: config.timeoutMs, connectionsPerOrigin: config.maxInFlight, userAgent: WEBHOOK_USER_AGENT });
  const outcomes = createOutcomeWriter({ pool, logger, metrics, scheduleSeconds: config.retryScheduleSeconds, disableAfterSeconds: config.disableAfterSeconds, onDisabled: changed });
  const runner = new DeliveryRunner({
    pool,
    logger,
    horizon: deps.horizon,
    listen: deps.listen,
    fanOut: createFanOut(pool),
    sender,
    secrets,
    outcomes,
    metrics,
    maxInFlight: config.maxInFlight,
    // An attempt ends within its timeout; the margin covers recording its outcome.
    leaseSeconds: Math.ceil(config.timeoutMs / 1000) + 30,
    pollMs: deps.pollMs,
  });
  wake.runner = runner;
  return {
    webhooks,
    deliveries,
    runner,
    async close() {
      await runner.close();
      // Attempts in flight get a moment to finish and be written; the rest are sent again once their lease ends.
      await sender.close(CLOSE_GRACE_MS);
      await outcomes.flush();
    },
  };
}
