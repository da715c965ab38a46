/**
 * Every request the documented limits accept works end to end, however large: 256 properties of
 * 16,384 characters (about 4.2 MB, above gRPC's 4 MiB default message size) and a reply larger than
 * its request (the event comes back with id, times and rels). Before, the first answered 500 and the
 * second was committed and then answered 500: the client retried and made a duplicate. In both
 * backend modes: embedded (npm start's defaults) and real (Postgres, Redis, S3).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@dynamic-events/proto';
import { exampleEvent } from '../support/example.js';
import { largePng } from '../support/images.js';
import { BACKEND_MODES, modeAvailable, useStackInMode, type BackendMode } from '../support/backend-modes.js';
import { getJson, postJson, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const available = Object.fromEntries(await Promise.all(BACKEND_MODES.map(async (mode) => [mode, await modeAvailable(mode)]))) as Record<BackendMode, boolean>;

/** `count` properties whose values have `length` characters each (distinct, so nothing compresses away). */
function properties(count: number, length: number, char = 'x'): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${String(i).padStart(3, '0')}`, `${i}:`.padEnd(length, char)]));
}

function eventWith(device: string, props: Record<string, string>) {
  const body = exampleEvent({ device });
  return { ...body, event: { ...body.event, event_data: { ...body.event.event_data, event_additional_properties: props } } };
}

describe.each(BACKEND_MODES)('requests at the documented limits (%s)', (mode) => {
  if (!available[mode]) {
    it.skip(`${mode} backends not reachable`);
    return;
  }
  const ctx = useStackInMode(mode, 'e2e-large');

  async function stored(device: string): Promise<number> {
    const { rows } = await ctx.sql.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE device_name = $1', [device]);
    return Number(rows[0]!.n);
  }

  it('records 256 properties of 16,384 characters each and reads the event back', async () => {
    const props = properties(LIMITS.propertiesMaxCount, LIMITS.propertyValueMaxLength);
    const res = await postJson(`${ctx.stack.api}/dynamic-events`, eventWith('large-all', props));
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body!.event_additional_properties).toEqual(props);
    const read = await getJson(`${ctx.stack.api}/dynamic-events/${String(res.body!.id)}`);
    expect(read.status).toBe(200);
    expect(read.body!.event_additional_properties).toEqual(props);
    expect(await stored('large-all')).toBe(1);
  });

  // Nine round trips of 4.2 MB each way: 25-30 s on a busy machine, so its own generous limit.
  it('answers every request whose reply is larger than its request and than grpc-js\'s default 4 MiB limit', { timeout: 120_000 }, async () => {
    // A long object id makes the reply's rel larger than what the request alone carries; with about
    // 4.19 MB of properties the request fits 4 MiB and the reply does not, so a reply limit of 4 MiB
    // would record the event and then answer 500. The sweep covers that window with room on both sides.
    const source = { device_name: '', object_id: '\u{1D11E}'.repeat(255), object_domain: `${'d'.repeat(200)}.x`, object_name: 'n', object_type: 't' };
    const base = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`p${i}`, 'é'.repeat(8_200)]));
    for (let extra = 3_128; extra <= 3_192; extra += 8) {
      const device = `rpl-${extra}`;
      const props = { ...base, last: 'é'.repeat(extra) };
      const body = { source: { ...source, device_name: device }, event: { event_type: { event_type: 'e', display_name: 'E', display_description: 'D' }, event_data: { event_additional_properties: props } } };
      const res = await postJson(`${ctx.stack.api}/dynamic-events`, body);
      expect(res.status, `${device}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
      const read = await getJson(`${ctx.stack.api}/dynamic-events/${String(res.body!.id)}`);
      expect(read.status).toBe(200);
      expect(await stored(device)).toBe(1);
    }
  });

  it('stores a 10 MiB image with long properties in one body under 16 MiB', async () => {
    const image = largePng(10 * 1024 * 1024 - 64 * 1024);
    const props = { ...properties(64, LIMITS.propertyValueMaxLength), base64_image: image.bytes.toString('base64') };
    const body = JSON.stringify(eventWith('large-image', props));
    expect(body.length).toBeLessThan(16 * 1024 * 1024);
    const res = await postJson(`${ctx.stack.api}/dynamic-events`, body);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const url = (res.body!.images as string[]).at(-1)!;
    const served = await fetch(url);
    const got = Buffer.from(await served.arrayBuffer());
    expect(got.equals(image.bytes)).toBe(true);
    expect(await stored('large-image')).toBe(1);
  });
});
