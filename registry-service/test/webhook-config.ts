import { randomBytes } from 'node:crypto';
import type { WebhookConfig } from '../src/config.js';

/** Webhooks as tests run them: loopback receivers allowed, retries after 1 s and 2 s, answers within 5 s. */
export const TEST_WEBHOOK_CONFIG: WebhookConfig = {
  secretKey: randomBytes(32),
  timeoutMs: 5000,
  retryScheduleSeconds: [1, 2],
  disableAfterSeconds: 5 * 86_400,
  allowedNetworks: ['127.0.0.0/8'],
  maxInFlight: 16,
  deliver: true,
};

