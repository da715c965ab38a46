/**
 * Retention and webhooks on real PostgreSQL: the commit log is the webhooks' queue, so no commit a
 * webhook has not fanned out is purged whatever WATCH_RETENTION says; EVENT_RETENTION deletes the
 * delivery log with the events.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { createRetention } from '../src/jobs/retention.js';
import { sampleEvent, silent, useFreshRegistry, type TestRegistry } from './helpers.js';
import { countAllCommits } from './counts-support.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
// The sender is not started: fan-out runs only when a test calls it.
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))));

const retention = (seconds: number) =>
  createRetention({ pool: t.pool, logger: silent, metrics: t.metrics, horizon: t.server.watching.horizon, eventRetentionSeconds: seconds, watchRetentionSeconds: seconds });

describe.skipIf(!up)('retention with webhooks', () => {
  it('keeps every commit a webhook has not fanned out, however old', async () => {
    const { webhook } = await api.create({ url: 'https://hooks.example.com/in', enabled: false });
    for (let i = 0; i < 3; i++) await t.api.recordEvent(sampleEvent({ source: { objectId: `k-${i}` } }));
    await t.pool.query("UPDATE commit_log SET written_at = now() - interval '2 days'");
    await t.pool.query("UPDATE events SET created_at = now() - interval '2 hours', updated_at = now() - interval '2 hours'");
    // Events older than a day go; their commits stay: the webhook's cursor is before them.
    const pass = await retention(86_400).runOnce();
    expect(pass.commits).toBe(0);
    const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM commit_log');
    expect(rows[0]!.n).toBeGreaterThanOrEqual(3);
    await api.delete(webhook!.id);
    // Without webhooks the same pass purges them, once the counts' pass (main.ts runs it) has counted them.
    await countAllCommits(t);
    expect((await retention(86_400).runOnce()).commits).toBeGreaterThanOrEqual(3);
  });

  it('EVENT_RETENTION deletes deliveries (and their attempts) older than it, pending ones too', async () => {
    const { webhook } = await api.create({ url: 'https://hooks.example.com/in', enabled: false });
    await t.api.recordEvent(sampleEvent({ source: { objectId: 'old' } }));
    t.server.webhooks.runner?.start();
    const log = await eventually(() => api.deliveries(webhook!.id), (l) => l.deliveries.length === 1);
    expect(log.deliveries[0]!.status).toBe(1);
    await t.pool.query("UPDATE webhook_deliveries SET created_at = now() - interval '2 hours'");
    expect((await retention(3600).runOnce()).deliveries).toBe(1);
    expect((await api.deliveries(webhook!.id)).deliveries).toHaveLength(0);
    await api.delete(webhook!.id);
  });
});
