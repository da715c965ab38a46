/**
 * A batch with occurred_at through all three services (the stack as npm start runs it): per-event
 * results in order, nothing of a refused event stored, one device for the events naming it, the
 * occurrence time answered by the POST, GET, the lists (filtered and ordered by it) and the stream,
 * and a 1,000-event batch with images answered within the gateway's budget.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { useStackInMode } from '../support/backend-modes.js';
import { exampleEvent } from '../support/example.js';
import { assertMatchesSchema } from '../support/openapi.js';
import { openSse } from '../support/sse.js';
import { getJson, postJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test bodies are broken in untyped ways
const at = (event: Body, occurredAt: string): Body => ({ ...event, event: { ...event.event, occurred_at: occurredAt } });
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('batches and occurred_at through all three services', () => {
  const ctx = useStackInMode('embedded', 'e2e-batch');
  const count = async (sql: string, values: unknown[]) => Number((await ctx.sql.query(sql, values)).rows[0].n);

  it('records the good events of a batch, refuses the bad ones alone, and answers occurred_at everywhere', async () => {
    const device = 'batch-cam-1';
    const stream = await openSse(`${ctx.stack.api}/dynamic-events/stream?device_name=${device}&kinds=event.created`);
    const good = (n: number) => at(exampleEvent({ device, objectId: `ch-${n}` }), `2026-01-01T0${n}:00:00.123456789+01:00`);
    const bad = { ...exampleEvent({ device }), source: { ...exampleEvent({ device }).source, device_name: '' } };
    const response = await postJson(`${ctx.url}/batch`, { events: [good(3), bad, good(1), at(exampleEvent({ device: 'batch-cam-x' }), '3026-01-01T00:00:00Z'), good(2)] });
    expect(response.status).toBe(200);
    assertMatchesSchema('BatchResponse', response.body);
    const { results, recorded, refused } = response.body as { results: Body[]; recorded: number; refused: number };
    expect([recorded, refused]).toEqual([3, 2]);
    expect(results.map((r) => r.status)).toEqual([200, 400, 200, 400, 200]);
    expect(results[1]!.error).toBe('events[1].source.device_name must not be empty');
    expect(results[3]!.error).toBe('events[3].event.occurred_at must not be more than 300 s in the future (OCCURRED_AT_MAX_SKEW)');
    expect(results[0]!.event.occurred_at).toBe('2026-01-01T02:00:00.123457000Z');
    expect(await count('SELECT count(*) AS n FROM devices WHERE device_name IN ($1, $2)', [device, 'batch-cam-x'])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM events WHERE device_name = $1 AND occurred_at IS NOT NULL', [device])).toBe(3);

    const id = results[0]!.event.id as string;
    expect((await getJson(`${ctx.url}/${id}`)).body).toEqual(results[0]!.event);
    const list = await getJson(`${ctx.url}?device_name=${device}&order_by=occurred_at&order=asc&occurred_since=2026-01-01T00:00:00.1Z&occurred_until=2026-01-01T02:30:00Z`);
    expect((list.body!.events as Body[]).map((e) => e.occurred_at)).toEqual(['2026-01-01T00:00:00.123457000Z', '2026-01-01T01:00:00.123457000Z', '2026-01-01T02:00:00.123457000Z']);
    await stream.until((frames) => frames.filter((f) => f.event === 'event.created').length >= 3);
    const streamed = stream.frames.filter((f) => f.event === 'event.created').map((f) => (JSON.parse(f.data!) as Body).occurred_at);
    expect(streamed.sort()).toEqual(['2026-01-01T00:00:00.123457000Z', '2026-01-01T01:00:00.123457000Z', '2026-01-01T02:00:00.123457000Z']);
    stream.close();
  });

  it('replays a batch sent again with its Idempotency-Key, and refuses the key with another body (409, nothing stored)', async () => {
    const headers = { 'Idempotency-Key': 'e2e-batch-key' };
    const events = [exampleEvent({ device: 'idem-batch-1' }), { source: {}, event: {} }, exampleEvent({ device: 'idem-batch-2' })];
    const first = await postJson(`${ctx.url}/batch`, { events }, headers);
    expect(first.body).toMatchObject({ recorded: 2, refused: 1 });
    const again = await postJson(`${ctx.url}/batch`, { events }, headers);
    expect(again.body).toEqual(first.body);
    const other = await postJson(`${ctx.url}/batch`, { events: [exampleEvent({ device: 'idem-batch-3' }), ...events] }, headers);
    expect(other).toMatchObject({ status: 409, body: { error: 'Idempotency-Key was already used for a different request' } });
    expect(await count("SELECT count(*) AS n FROM events WHERE device_name LIKE 'idem-batch-%'", [])).toBe(2);
  });

  it('answers occurred_at on the single POST, null when none was sent', async () => {
    const plain = await postJson(ctx.url, exampleEvent({ device: 'single-cam' }));
    expect(plain.body!.occurred_at).toBeNull();
    const timed = await postJson(ctx.url, at(exampleEvent({ device: 'single-cam' }), '2025-06-30T23:59:59Z'));
    expect(timed.body!.occurred_at).toBe('2025-06-30T23:59:59.000000000Z');
  });

  it('creates one device for 1,000 events naming it, and stores each event\'s own image', async () => {
    const events = Array.from({ length: 1000 }, (_, i) => {
      const event = exampleEvent({ device: 'batch-crowd', objectId: `ch-${i % 10}` }) as Body;
      if (i % 100 === 0) event.event.event_data.event_additional_properties = { base64_image: PNG };
      return event;
    });
    const started = performance.now();
    const response = await postJson(`${ctx.url}/batch`, { events });
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(response.body).toMatchObject({ recorded: 1000, refused: 0 });
    expect(await count('SELECT count(*) AS n FROM devices WHERE device_name = $1', ['batch-crowd'])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM events WHERE device_name = $1', ['batch-crowd'])).toBe(1000);
    const withImage = (response.body!.results as Body[]).filter((r) => (r.event.images as string[]).some((url) => url.includes('/media/')));
    expect(withImage).toHaveLength(10);
  });
});
