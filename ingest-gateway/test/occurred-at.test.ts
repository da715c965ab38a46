/** event.occurred_at over HTTP: taken as RFC 3339 with a zone, answered in created_at's form, refused naming the field. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, resetFakes } from './http-setup.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

const withOccurredAt = (value: unknown) => mutate((b) => (b.event.occurred_at = value));

describe('event.occurred_at', () => {
  it('is answered null when not sent, in created_at form (UTC, nine digits, microseconds) when sent', async () => {
    expect((await gw.post(validBody())).json.occurred_at).toBeNull();
    const response = await gw.post(withOccurredAt('2026-11-21T10:20:04.123456789+02:00'));
    expect(response.status).toBe(200);
    expect(response.json.occurred_at).toBe('2026-11-21T08:20:04.123457000Z');
    expect(gw.registry.recorded.at(-1)!.occurredAt).toEqual({ seconds: String(Date.UTC(2026, 10, 21, 8, 20, 4) / 1000), nanos: 123_456_789 });
  });

  it('is answered by GET as sent', async () => {
    const posted = await gw.post(withOccurredAt('2026-01-02T03:04:05Z'));
    const read = await fetch(`${gw.url}/api/platform/dh/dynamic-events/${String(posted.json.id)}`);
    expect(((await read.json()) as Record<string, unknown>).occurred_at).toBe('2026-01-02T03:04:05.000000000Z');
  });

  const format = 'event.occurred_at must be an RFC 3339 date-time with a time zone, such as 2026-11-21T08:20:04.123Z';
  it.each([
    [1_795_000_000, 'event.occurred_at must be a string'],
    ['', format],
    ['2026-13-01T00:00:00Z', format],
    ['10000-01-01T00:00:00Z', format],
    ['2016-12-31T23:59:60Z', format],
    ['2026-11-21T08:20:04', format],
    ['1969-12-31T23:59:59Z', 'event.occurred_at must not be before 1970-01-01T00:00:00Z'],
    [new Date(Date.now() + 3_600_000).toISOString(), 'event.occurred_at must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)'],
  ])('refuses %j with 400 naming the field, and records nothing', async (value, error) => {
    const response = await gw.post(withOccurredAt(value));
    expect(response).toMatchObject({ status: 400, json: { error } });
    expect(gw.registry.calls).toEqual([]);
  });
});
