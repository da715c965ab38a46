/**
 * Where a webhook's cursor starts, against writes in flight on real PostgreSQL. A write takes its
 * commit number just before it commits, so a number may be handed out while its commit is still to
 * come: a webhook created (or re-enabled, or given a new filter) in that moment must still get the
 * change once it commits (a PATCH leaves the cursor where it is). A later write fences each case:
 * once its delivery exists, fan-out has passed the held write's lower number too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { insertRecordBatch } from '../src/db/queries/record-events.js';
import { uuidv7 } from '../src/uuid-v7.js';
import { unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventually, webhookApi, type WebhookApi } from './webhook-api.js';
import { batch } from './watch-harness.js';

const up = await postgresAvailable();
let t: TestRegistry;
let api: WebhookApi;
let receiver: Receiver;
if (up) useFreshRegistry((started) => ((t = started), (api = webhookApi(started.address))), { webhooks: {} });
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  api?.close();
  await receiver?.close();
});

const noFilter = { domains: undefined, eventTypes: undefined, deviceNames: undefined, kinds: undefined };

/** A write that took its commit number and has not committed: its transaction stays open until `commit`. */
async function heldWrite(pool: pg.Pool, device: string): Promise<{ id: string; seq: bigint; commit: () => Promise<void> }> {
  const client = await pool.connect();
  const id = uuidv7();
  await client.query('BEGIN');
  const { commitSeq } = await insertRecordBatch(client, batch(id, device, unique('o')));
  let open = true;
  return {
    id,
    seq: commitSeq,
    commit: async () => {
      if (!open) return;
      open = false;
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** The webhook's cursor: every commit numbered up to it has had its deliveries made. */
async function cursorOf(webhookId: string): Promise<bigint> {
  const { rows } = await t.pool.query<{ n: string }>('SELECT fanned_through::text AS n FROM webhooks WHERE id = $1', [webhookId]);
  return BigInt(rows[0]!.n);
}

/** Records one committed event for `device` and waits until `webhookId` has its delivery; answers the webhook's event ids. */
async function fencedEventIds(webhookId: string, device: string): Promise<string[]> {
  const fence = uuidv7();
  await insertRecordBatch(t.pool, batch(fence, device, unique('o')));
  // Generous: the horizon waits for every long transaction of the cluster (a shared server's other databases too).
  const log = await eventually(() => api.deliveries(webhookId), (l) => l.deliveries.some((d) => d.eventId === fence), 60_000);
  return log.deliveries.map((d) => d.eventId).filter((id) => id !== fence);
}

describe.skipIf(!up)("a webhook's cursor against writes in flight", { timeout: 120_000 }, () => {
  it('a write numbered before the webhook was created and committed after it is delivered', async () => {
    const device = unique('held');
    const write = await heldWrite(t.pool, device);
    try {
      const { webhook } = await api.create({ url: receiver.url, filter: { ...noFilter, deviceNames: { values: [device] } } });
      expect(await cursorOf(webhook!.id)).toBeLessThan(write.seq);
      await write.commit();
      expect(await fencedEventIds(webhook!.id, device)).toEqual([write.id]);
      await api.delete(webhook!.id);
    } finally {
      await write.commit();
    }
  });

  it('a write numbered before a re-enable and committed after it is delivered', async () => {
    const device = unique('reenable');
    const { webhook } = await api.create({ url: receiver.url, enabled: false, filter: { ...noFilter, deviceNames: { values: [device] } } });
    const write = await heldWrite(t.pool, device);
    try {
      await api.update({ id: webhook!.id, enabled: true });
      expect(await cursorOf(webhook!.id)).toBeLessThan(write.seq);
      await write.commit();
      expect(await fencedEventIds(webhook!.id, device)).toEqual([write.id]);
      await api.delete(webhook!.id);
    } finally {
      await write.commit();
    }
  });

  it('a write numbered before a filter change and committed after it is judged by the new filter', async () => {
    const device = unique('refilter');
    const { webhook } = await api.create({ url: receiver.url, filter: { ...noFilter, deviceNames: { values: [unique('other')] } } });
    const write = await heldWrite(t.pool, device);
    try {
      await api.update({ id: webhook!.id, filter: { ...noFilter, deviceNames: { values: [device] } } });
      expect(await cursorOf(webhook!.id)).toBeLessThan(write.seq);
      await write.commit();
      expect(await fencedEventIds(webhook!.id, device)).toEqual([write.id]);
      await api.delete(webhook!.id);
    } finally {
      await write.commit();
    }
  });
});
