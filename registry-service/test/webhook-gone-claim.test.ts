/**
 * A 410 disables its webhook in the same commit that puts its delivery back to pending, on real
 * PostgreSQL: were they two commits, a claim between them finds the delivery due on a webhook still
 * enabled and sends it again at once, to the endpoint that has just said it is gone.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { claimDue } from '../src/db/queries/webhook-claims.js';
import { insertDeliveries } from '../src/db/queries/webhook-fan-out.js';
import { createOutcomeWriter } from '../src/webhooks/outcome-writer.js';
import { createWebhookMetrics } from '../src/webhooks/webhook-metrics.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { silent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { webhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
// The sender is not started: the test claims and writes the outcomes itself.
if (up) useFreshRegistry((started) => (t = started));

const ROUNDS = 30;

describe.skipIf(!up)('a 410 outcome against concurrent claims', () => {
  it('no claim takes the delivery between its new state and the disable', async () => {
    const api = webhookApi(t.address);
    const writer = createOutcomeWriter({
      pool: t.pool,
      logger: silent,
      metrics: createWebhookMetrics(new Registry(), async () => []),
      scheduleSeconds: [1, 2],
      disableAfterSeconds: 3600,
      onDisabled: () => {},
    });
    try {
      const reclaimed: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const { webhook } = await api.create({ url: 'https://hooks.example.com/in' });
        const webhookId = webhook!.id;
        const id = uuidv7();
        await insertDeliveries(t.pool, [{ id, webhookId, commitSeq: 1n, position: 0, type: 'event.created', eventId: undefined, body: '{}' }]);
        const [claimed] = await claimDue(t.pool, webhookId, 1, 60);
        expect(claimed?.id).toBe(id);
        // Another replica's pump, claiming as fast as it can while the outcome is written.
        let writing = true;
        let taken = 0;
        const rival = (async () => {
          while (writing) taken += (await claimDue(t.pool, webhookId, 1, 60)).length;
        })();
        writer.add(claimed!, { statusCode: 410, error: 'answered 410', retryAfterSeconds: undefined, durationMs: 2, responseBody: '' });
        await writer.flush();
        writing = false;
        await rival;
        if (taken > 0) reclaimed.push(round);
        const after = await api.get(webhookId);
        expect(after.enabled).toBe(false);
        expect(after.disabledReason).toBe('the endpoint answered 410 Gone');
      }
      expect(reclaimed, 'rounds in which the gone delivery was claimed again').toEqual([]);
    } finally {
      api.close();
    }
  }, 60_000);
});
