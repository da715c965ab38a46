/**
 * Idempotency-Key over HTTP, through all three services, in both backend modes (embedded, as npm
 * start runs it, and real: Postgres, Redis, S3): a retry gets the same event (one row), another body
 * with the key gets 409, 20 concurrent requests with one key record one event, and a second stack on
 * the same database (another set of processes: a restart, or another replica) replays the key too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BACKEND_MODES, modeAvailable, useStackInMode, type BackendMode } from '../support/backend-modes.js';
import { exampleEvent } from '../support/example.js';
import { assertMatchesSchema, openapi } from '../support/openapi.js';
import { scrape, valueOf } from '../support/prometheus.js';
import { tempDir } from '../support/servers.js';
import { postJson, startStack, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const available = Object.fromEntries(await Promise.all(BACKEND_MODES.map(async (mode) => [mode, await modeAvailable(mode)]))) as Record<BackendMode, boolean>;

describe.each(BACKEND_MODES)('Idempotency-Key over HTTP (%s)', (mode) => {
  if (!available[mode]) {
    it.skip(`${mode} backends not reachable`);
    return;
  }
  const ctx = useStackInMode(mode, 'e2e-idempotency');
  const url = () => ctx.url;
  const eventsOf = async (device: string) => Number((await ctx.sql.query('SELECT count(*) AS n FROM events WHERE device_name = $1', [device])).rows[0].n);

  it('a retry with the same key and body gets the same event (200) and records nothing more; another body gets 409', async () => {
    const body = exampleEvent({ device: 'idem-cam-1' });
    const headers = { 'Idempotency-Key': 'retry-1' };
    const first = await postJson(url(), body, headers);
    expect(first.status).toBe(200);
    const again = await postJson(url(), body, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await eventsOf('idem-cam-1')).toBe(1);

    const other = await postJson(url(), exampleEvent({ device: 'idem-cam-2' }), headers);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'Idempotency-Key was already used for a different request', field: 'Idempotency-Key', rule: 'key-reused' });
    // The contract declares the header and the 409.
    assertMatchesSchema('Error', other.body);
    const post = (openapi.paths as Record<string, { post: { parameters: Array<{ name: string }>; responses: Record<string, unknown> } }>)['/api/platform/dh/dynamic-events']!.post;
    expect(post.parameters.map((p) => p.name)).toContain('Idempotency-Key');
    expect(Object.keys(post.responses)).toContain('409');
    expect((await ctx.sql.query('SELECT count(*) AS n FROM devices WHERE device_name = $1', ['idem-cam-2'])).rows[0].n).toBe('0');

    const metrics = await scrape(ctx.stack.metrics.registry);
    expect(valueOf(metrics, 'registry_idempotency_keys_total', { outcome: 'recorded' })).toBe(1);
    expect(valueOf(metrics, 'registry_idempotency_keys_total', { outcome: 'replayed' })).toBe(1);
    expect(valueOf(metrics, 'registry_idempotency_keys_total', { outcome: 'conflict' })).toBe(1);
  });

  it('20 concurrent requests with one key record exactly one event; every answer is 200 with its id', async () => {
    const body = exampleEvent({ device: 'idem-cam-race' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => postJson(url(), body, { 'Idempotency-Key': 'race-1' })));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(new Set(answers.map((a) => a.body?.id)).size).toBe(1);
    expect(await eventsOf('idem-cam-race')).toBe(1);
  });

  it('a second stack on the same database (other processes: a restart or another replica) replays the key', async () => {
    const body = exampleEvent({ device: 'idem-cam-restart' });
    const first = await postJson(url(), body, { 'Idempotency-Key': 'restart-1' });
    const otherDir = tempDir('e2e-idempotency-2');
    const other = await startStack({ dataDir: otherDir.path, env: { DATABASE_URL: ctx.databaseUrl } });
    try {
      const replayed = await postJson(`${other.api}/dynamic-events`, body, { 'Idempotency-Key': 'restart-1' });
      expect(replayed.status).toBe(200);
      expect(replayed.body?.id).toBe(first.body?.id);
      expect(await eventsOf('idem-cam-restart')).toBe(1);
    } finally {
      await other.stop('SIGTERM');
      otherDir.remove();
    }
  });

  it('answers 400 naming the header for a key over 255 characters, storing nothing', async () => {
    const response = await postJson(url(), exampleEvent({ device: 'idem-cam-long' }), { 'Idempotency-Key': 'k'.repeat(256) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Idempotency-Key header must be at most 255 characters', field: 'Idempotency-Key', rule: 'max-length' });
    expect(await eventsOf('idem-cam-long')).toBe(0);
  });
});
