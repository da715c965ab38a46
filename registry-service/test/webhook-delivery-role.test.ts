/**
 * WEBHOOK_DELIVERY=off on real PostgreSQL: such a replica manages webhooks and records events but
 * sends nothing; a delivering replica on the same database sends what it recorded, each change once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { sampleEvent, startRegistry, type TestRegistry } from './helpers.js';
import { webhookApi } from './webhook-api.js';

const up = await postgresAvailable();
const closing: Array<{ close(): unknown }> = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c.close();
});

describe('WEBHOOK_DELIVERY', () => {
  const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/x', REGISTRY_INTERNAL_TOKEN: 'x'.repeat(32) };
  it('is on unless set off, and refuses anything else naming the variable', () => {
    expect(loadConfig(base).webhooks.deliver).toBe(true);
    expect(loadConfig({ ...base, WEBHOOK_DELIVERY: 'off' }).webhooks.deliver).toBe(false);
    expect(() => loadConfig({ ...base, WEBHOOK_DELIVERY: 'no' })).toThrow(/WEBHOOK_DELIVERY/);
  });
});

describe('COUNTS_PASS', () => {
  const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/x', REGISTRY_INTERNAL_TOKEN: 'x'.repeat(32) };
  it('is on unless set off (a delivery replica), and off keeps COUNTS_INTERVAL_MS, so retention keeps uncounted commits', () => {
    expect(loadConfig(base).countsPass).toBe(true);
    const off = loadConfig({ ...base, COUNTS_PASS: 'off', WEBHOOK_DELIVERY: 'on' });
    expect([off.countsPass, off.countsIntervalMs]).toEqual([false, 5000]);
    expect(() => loadConfig({ ...base, COUNTS_PASS: 'no' })).toThrow(/COUNTS_PASS/);
  });
});

describe.skipIf(!up)('a replica with WEBHOOK_DELIVERY=off', () => {
  it('sends nothing; a delivering replica sends every event it recorded', async () => {
    const db = await createTestDatabase();
    closing.push({ close: () => db.drop() });
    const quiet: TestRegistry = await startRegistry({ databaseUrl: db.url, webhooks: { deliver: false } });
    closing.push(quiet);
    expect(quiet.server.webhooks.runner).toBeUndefined();
    const r: Receiver = await startReceiver({});
    closing.push(r);
    const api = webhookApi(quiet.address);
    closing.push({ close: () => api.close() });
    const { webhook } = await api.create({ url: r.url });
    expect(webhook?.enabled).toBe(true);
    for (let i = 0; i < 5; i++) await quiet.api.recordEvent(sampleEvent({ source: { objectId: `q-${i}` } }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(r.received).toHaveLength(0);
    const sender = await startRegistry({ databaseUrl: db.url, webhooks: {}, migrate: false });
    closing.push(sender);
    await r.waitFor(5, 10_000);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(5);
  });
});
