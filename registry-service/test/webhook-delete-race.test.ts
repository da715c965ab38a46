/**
 * Deleting a webhook while its attempts' outcomes are written, on real PostgreSQL: the delete
 * cascades to the deliveries the outcome statement updates, so both must take the deliveries' row
 * locks in one order (by id) or PostgreSQL aborts one of them as a deadlock (the admin's DELETE
 * answered 500, or a batch of outcomes lost until the leases end).
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { insertDeliveries } from '../src/db/queries/webhook-fan-out.js';
import { recordAttempts, type AttemptOutcome } from '../src/db/queries/webhook-outcomes.js';
import { deleteWebhook } from '../src/db/queries/webhooks.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { useFreshRegistry, type TestRegistry } from './helpers.js';
import { webhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
// The sender is not started: the test writes the outcomes itself.
if (up) useFreshRegistry((started) => (t = started));

const DELIVERIES = 3000;
const shuffled = <T>(items: T[]): T[] => items.map((v) => [Math.random(), v] as const).sort((a, b) => a[0] - b[0]).map(([, v]) => v);
const outcome = (deliveryId: string, webhookId: string): AttemptOutcome => ({
  deliveryId,
  webhookId,
  atMicros: BigInt(Date.now()) * 1000n,
  statusCode: 500,
  durationMs: 3,
  error: 'answered 500',
  responseBody: '',
  status: 'pending',
  nextAttemptAtMicros: BigInt(Date.now() + 60_000) * 1000n,
  disables: undefined,
});

describe.skipIf(!up)('deleting a webhook while outcomes are written', () => {
  it('neither the delete nor the outcomes fail as a deadlock', async () => {
    const api = webhookApi(t.address);
    try {
      for (let round = 0; round < 6; round++) {
        const { webhook } = await api.create({ url: 'https://hooks.example.com/in', enabled: false });
        const webhookId = webhook!.id;
        const ids = Array.from({ length: DELIVERIES }, () => uuidv7());
        await insertDeliveries(t.pool, ids.map((id, i) => ({ id, webhookId, commitSeq: BigInt(i + 1), position: 0, type: 'event.created' as const, eventId: undefined, body: '{}' })));
        // Disjoint, as each delivery's attempt is one replica's; in any order within a batch.
        const order = shuffled(ids);
        const batches = Array.from({ length: 6 }, (_, i) => order.slice(i * 500, (i + 1) * 500).map((id) => outcome(id, webhookId)));
        const results = await Promise.allSettled([...batches.map((b) => recordAttempts(t.pool, b)), deleteWebhook(t.pool, webhookId)]);
        const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String((r.reason as { code?: string }).code ?? r.reason));
        expect(failures, `round ${round}`).toEqual([]);
      }
    } finally {
      api.close();
    }
  }, 120_000);
});
