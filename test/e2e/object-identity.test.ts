/**
 * Two different objects cannot share one identity: ("col.a.b", "c") and ("col.a", "b.c") both spell
 * "col.a.b.c". The first owns it; the second is refused with 409 naming the existing object, and
 * stores nothing: no event, no device, no object, no image (even when the two race). In both
 * backend modes: embedded (npm start's defaults) and real (Postgres, Redis, S3).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples } from '../support/images.js';
import { BACKEND_MODES, modeAvailable, useStackInMode, type BackendMode } from '../support/backend-modes.js';
import { postJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);
const available = Object.fromEntries(await Promise.all(BACKEND_MODES.map(async (mode) => [mode, await modeAvailable(mode)]))) as Record<BackendMode, boolean>;

function event(device: string, domain: string, objectId: string, image?: Buffer) {
  const body = exampleEvent({ device, domain, objectId });
  if (!image) return body;
  return { ...body, event: { ...body.event, event_data: { ...body.event.event_data, event_additional_properties: { base64_image: image.toString('base64') } } } };
}

describe.each(BACKEND_MODES)('object identity (%s)', (mode) => {
  if (!available[mode]) {
    it.skip(`${mode} backends not reachable`);
    return;
  }
  const ctx = useStackInMode(mode, 'e2e-identity');
  const count = async (query: string, values: unknown[]) => Number((await ctx.sql.query<{ n: string }>(query, values)).rows[0]!.n);

  it('refuses the second pair with 409 naming the existing object, and stores nothing of it', async () => {
    const first = await postJson(`${ctx.stack.api}/dynamic-events`, event('id-dev-1', 'col.a.b', 'c'));
    expect(first.status).toBe(200);
    const second = await postJson(`${ctx.stack.api}/dynamic-events`, event('id-dev-2', 'col.a', 'b.c'));
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: 'object "col.a.b.c" already exists with object_domain "col.a.b" and object_id "c": source.object_domain "col.a" with source.object_id "b.c" would give another object the same identity',
      field: 'source.object_id',
      rule: 'identity-conflict',
    });
    expect(await count('SELECT count(*) AS n FROM events WHERE device_name = $1', ['id-dev-2'])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM devices WHERE device_name = $1', ['id-dev-2'])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM event_types WHERE domain = $1', ['col.a'])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM objects WHERE id = $1', ['col.a.b.c'])).toBe(1);
    // The owner keeps working.
    expect((await postJson(`${ctx.stack.api}/dynamic-events`, event('id-dev-1', 'col.a.b', 'c'))).status).toBe(200);
  });

  it('stores no image for a refused pair', async () => {
    expect((await postJson(`${ctx.stack.api}/dynamic-events`, event('img-dev-1', 'img.x.y', 'z', samples.gif.bytes))).status).toBe(200);
    const before = await ctx.storedImages();
    expect(before).toBe(1); // the store is where this test looks
    const refused = await postJson(`${ctx.stack.api}/dynamic-events`, event('img-dev-2', 'img.x', 'y.z', samples.png.bytes));
    expect(refused.status).toBe(409);
    expect(await ctx.storedImages()).toBe(before);
  });

  it('lets exactly one of two racing pairs own the identifier', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postJson(`${ctx.stack.api}/dynamic-events`, i % 2 ? event(`race-${i}`, 'race.p.q', 'r') : event(`race-${i}`, 'race.p', 'q.r'))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const { rows } = await ctx.sql.query<{ object_domain: string }>('SELECT object_domain FROM objects WHERE id = $1', ['race.p.q.r']);
    expect(rows).toHaveLength(1);
    const owner = rows[0]!.object_domain;
    // Every 200 went to the owner's pair, every 409 to the other; every stored event carries the owner's domain.
    results.forEach((r, i) => expect(r.status).toBe((i % 2 ? 'race.p.q' : 'race.p') === owner ? 200 : 409));
    expect(await count("SELECT count(*) AS n FROM events WHERE object_ref = 'race.p.q.r' AND domain <> $1", [owner])).toBe(0);
  });
});
