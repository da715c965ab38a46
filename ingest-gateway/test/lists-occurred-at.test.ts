/** GET dynamic-events by occurrence time: occurred_since / occurred_until and order_by reach the registry, or a 400 names them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, startGateway, type TestGateway } from './helpers.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

async function get(path: string) {
  const response = await fetch(`${gw.url}${API}${path}`);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('GET dynamic-events by occurred_at', () => {
  it('passes occurred_since, occurred_until and order_by=occurred_at on exactly', async () => {
    const { status } = await get('/dynamic-events?occurred_since=2026-01-01T00:00:00.5%2B01:00&occurred_until=2026-02-01T00:00:00Z&order_by=occurred_at&order=asc');
    expect(status).toBe(200);
    expect(gw.registry.lastQuery).toMatchObject({
      occurredSince: { seconds: String(Date.UTC(2025, 11, 31, 23) / 1000), nanos: 500_000_000 },
      occurredUntil: { seconds: String(Date.UTC(2026, 1, 1) / 1000), nanos: 0 },
      byOccurrence: true,
      oldestFirst: true,
    });
    await get('/dynamic-events?order_by=created_at');
    expect(gw.registry.lastQuery).toMatchObject({ byOccurrence: false, occurredSince: undefined });
  });

  it.each([
    ['/dynamic-events?occurred_since=yesterday', 'occurred_since must be an RFC 3339 timestamp such as 2026-11-21T08:20:04Z, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z'],
    ['/dynamic-events?occurred_since=2026-02-01T00:00:00Z&occurred_until=2026-01-01T00:00:00Z', 'occurred_since must not be after occurred_until'],
    ['/dynamic-events?order_by=received', 'order_by must be created_at or occurred_at'],
    ['/dynamic-events/stream?occurred_since=2026-01-01T00:00:00Z', 'occurred_since is not a known parameter'],
  ])('answers %s with 400 naming the parameter', async (path, error) => {
    const { status, json } = await get(path);
    expect(status).toBe(400);
    expect(String(json.error)).toContain(error);
  });
});
