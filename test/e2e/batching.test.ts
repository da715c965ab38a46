/**
 * The batched write path over HTTP, through all three services on a real PostgreSQL database:
 * concurrent POSTs share RecordEvents calls and statements, yet each request gets its own answer
 * (a refused event fails alone), and an overloaded gateway answers 503 with Retry-After at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { scrape, valueOf } from '../support/prometheus.js';
import { useStackOnFreshDatabase } from '../support/fresh-stack.js';
import { postgresAvailable } from '../support/servers.js';
import { getJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();

/** A request that takes longer than this counts as hanging: the test fails instead of waiting. */
const HANG_MS = 10_000;
/** The advisory lock that holds the overload test's slow statement. */
const STATEMENT_LOCK = 4_210_731;

/** POSTs JSON with a time limit; returns status, Retry-After and the parsed body. */
async function post(url: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(HANG_MS) });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: JSON.parse(text) as Record<string, unknown> };
}

/** The example event with its own device and a marker property `n`, to tell requests apart in the database. */
function markedEvent(n: number, overrides: { device: string; domain: string; eventType?: string }) {
  const body = exampleEvent({ device: overrides.device, domain: overrides.domain, objectId: `ch-${n % 5}`, eventType: overrides.eventType });
  return { ...body, event: { ...body.event, event_data: { ...body.event.event_data, event_additional_properties: { n: String(n) } } } };
}

describe.skipIf(!up)('batched writes over HTTP: a refused event among concurrent ones', () => {
  const ctx = useStackOnFreshDatabase('e2e-batching');

  it('answers 400 for that request alone; the 49 others answer 200 and are committed', async () => {
    // The database refuses one event type as if a value could not be stored (SQLSTATE 22021).
    await ctx.sql.query(`CREATE FUNCTION poison_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.event_type = 'poison' THEN RAISE EXCEPTION 'detail only the database knows' USING ERRCODE = '22021'; END IF; RETURN NEW; END $$`);
    await ctx.sql.query('CREATE TRIGGER poison_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION poison_event()');
    try {
      const POISON = 17;
      const bodies = Array.from({ length: 50 }, (_, n) =>
        n === POISON ? markedEvent(n, { device: 'cam-poison', domain: 'acme.batching', eventType: 'poison' }) : markedEvent(n, { device: `cam-${n % 6}`, domain: 'acme.batching' }),
      );
      const responses = await Promise.all(bodies.map((body) => post(ctx.url, body)));

      expect(responses.map((r) => r.status)).toEqual(bodies.map((_, n) => (n === POISON ? 400 : 200)));
      expect(responses[POISON]!.body).toEqual({ error: 'a value contains characters that cannot be stored', field: 'body', rule: 'storable' });
      // Each 200 carries its own request's event.
      const recorded = responses.flatMap((r, n) => (n === POISON ? [] : [{ n, id: String(r.body.id) }]));
      for (const { n } of recorded) expect(responses[n]!.body.event_additional_properties).toEqual({ n: String(n) });
      expect(new Set(recorded.map((r) => r.id)).size).toBe(49);

      for (const { n, id } of recorded) {
        const read = await getJson(`${ctx.stack.api}/dynamic-events/${id}`);
        expect(read.status, `event ${n}`).toBe(200);
        expect(read.body!.event_additional_properties).toEqual({ n: String(n) });
      }
      const { rows } = await ctx.sql.query<{ n: string; copies: number }>(
        `SELECT additional_properties->>'n' AS n, count(*)::int AS copies FROM events WHERE domain = 'acme.batching' GROUP BY 1 ORDER BY (additional_properties->>'n')::int`,
      );
      expect(rows).toEqual(recorded.map(({ n }) => ({ n: String(n), copies: 1 })));
      // Nothing of the refused event was stored, not even its new device.
      expect((await getJson(`${ctx.stack.api}/devices/cam-poison`)).status).toBe(404);
      // The 50 events travelled in fewer RecordEvents calls than requests.
      const metrics = await scrape(ctx.stack.metrics.gateway);
      expect(valueOf(metrics, 'ingest_record_batch_events_sum')).toBe(50);
      expect(valueOf(metrics, 'ingest_record_batch_events_count')).toBeLessThan(50);
      expect(ctx.stack.output()).not.toMatch(/"level":"error"/);
    } finally {
      await ctx.sql.query('DROP TRIGGER IF EXISTS poison_event ON events; DROP FUNCTION IF EXISTS poison_event()');
    }
  });
});

describe.skipIf(!up)('batched writes over HTTP: an overloaded gateway', () => {
  // One RecordEvents call at a time and room for 4 waiting events: a slow registry fills it at once.
  const ctx = useStackOnFreshDatabase('e2e-overload', { RECORD_CONCURRENCY: '1', INGEST_QUEUE_MAX_EVENTS: '4' });

  it('answers 503 with Retry-After and a JSON error at once; no request hangs; every 200 is committed exactly once', async () => {
    // The first statement writing a "slow-" device's events waits for a lock this test holds, so the
    // registry stays busy until the test lets it go (one wait per statement, not per row).
    await ctx.sql.query(`CREATE FUNCTION slow_statement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.device_name LIKE 'slow-%' AND current_setting('test.slept', true) IS DISTINCT FROM 'yes' THEN
          PERFORM set_config('test.slept', 'yes', true);
          PERFORM pg_advisory_xact_lock(${STATEMENT_LOCK});
        END IF;
        RETURN NEW;
      END $$`);
    await ctx.sql.query('CREATE TRIGGER slow_statement BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION slow_statement()');
    await ctx.sql.query(`SELECT pg_advisory_lock(${STATEMENT_LOCK})`);
    let held = true;
    try {
      const answers: Array<Awaited<ReturnType<typeof post>> & { whileHeld: boolean }> = [];
      const all = Promise.all(
        Array.from({ length: 30 }, async (_, n) => {
          const answer = { ...(await post(ctx.url, markedEvent(n, { device: 'slow-cam', domain: 'acme.overload' }))), whileHeld: held };
          answers.push(answer);
          return answer;
        }),
      );
      // The statement stays held until every request the gateway did not take in was answered: the
      // batch in flight (its events counted when it was sent) and the 4 queued are all that wait.
      await expect
        .poll(async () => {
          const inFlight = valueOf(await scrape(ctx.stack.metrics.gateway), 'ingest_record_batch_events_sum');
          return inFlight > 0 && answers.length === 30 - Math.min(30, inFlight + 4);
        }, { timeout: HANG_MS })
        .toBe(true);
      held = false;
      await ctx.sql.query(`SELECT pg_advisory_unlock(${STATEMENT_LOCK})`);
      const responses = await all;

      const statuses = responses.map((r) => r.status);
      expect([...new Set(statuses)].sort()).toEqual([200, 503]);
      const refused = responses.filter((r) => r.status === 503);
      const accepted = responses.flatMap((r, n) => (r.status === 200 ? [{ n, id: String(r.body.id) }] : []));
      for (const r of refused) {
        // At once: while the first statement was still held.
        expect(r.whileHeld).toBe(true);
        expect(r.retryAfter).toBe('1');
        expect(r.body).toEqual({ error: 'too many events are waiting to be recorded; retry later' });
      }
      // The accepted ones needed the held statement (each request gives up after HANG_MS: none hung).
      for (const r of responses.filter((x) => x.status === 200)) expect(r.whileHeld).toBe(false);
      // At most one call out and four waiting at a time: most of the burst is refused.
      expect(refused.length).toBeGreaterThanOrEqual(30 - 2 * 5);

      const { rows } = await ctx.sql.query<{ id: string; n: string }>(
        `SELECT id::text, additional_properties->>'n' AS n FROM events WHERE device_name = 'slow-cam' ORDER BY (additional_properties->>'n')::int`,
      );
      expect(rows).toEqual(accepted.map(({ n, id }) => ({ id, n: String(n) })));
      for (const { id } of accepted) expect((await getJson(`${ctx.stack.api}/dynamic-events/${id}`)).status).toBe(200);

      // Once the burst is over the gateway takes events again.
      expect((await post(ctx.url, markedEvent(99, { device: 'slow-cam', domain: 'acme.overload' }))).status).toBe(200);
    } finally {
      if (held) await ctx.sql.query(`SELECT pg_advisory_unlock(${STATEMENT_LOCK})`);
      await ctx.sql.query('DROP TRIGGER IF EXISTS slow_statement ON events; DROP FUNCTION IF EXISTS slow_statement()');
    }
  });
});
