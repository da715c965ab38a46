/** Idempotency-Key on a batch: the same body replays the same results, another body is a 409 with nothing stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, mutate, startGateway, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

/** The events the fake registry stored (a replay stores none). */
const stored = async () => (await gw.registry.listEvents({ limit: 100_000, pageToken: '', oldestFirst: false }, { requestId: 'test' })).items.length;

async function postBatch(body: unknown, key: string) {
  const response = await fetch(`${gw.url}${API}/dynamic-events/batch`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('Idempotency-Key on a batch', () => {
  const batch = { events: [mutate((b) => (b.source.device_name = 'idem-a')), mutate((b) => (b.source.device_name = '')), mutate((b) => (b.source.device_name = 'idem-c'))] };

  it('answers a retry of the same body with the same results, recording nothing more', async () => {
    const first = await postBatch(batch, 'batch-key-1');
    expect(first.status).toBe(200);
    const before = await stored();
    const again = await postBatch(batch, 'batch-key-1');
    expect(again).toEqual(first);
    expect(await stored()).toBe(before);
    expect(JSON.parse(first.text)).toMatchObject({ recorded: 2, refused: 1 });
  });

  it('answers the same key with another body 409 as a whole, storing nothing of it', async () => {
    await postBatch(batch, 'batch-key-2');
    const [before, sent] = [await stored(), gw.registry.recorded.length];
    const other = { events: [mutate((b) => (b.source.device_name = 'idem-other')), ...batch.events] };
    const response = await postBatch(other, 'batch-key-2');
    expect(response.status).toBe(409);
    expect(JSON.parse(response.text)).toEqual(refusal('Idempotency-Key was already used for a different request', { field: 'Idempotency-Key', rule: 'key-reused' }));
    expect([await stored(), gw.registry.recorded.length]).toEqual([before, sent]);
  });

  it('keeps a batch key apart from the same key on a single POST', async () => {
    expect((await postBatch(batch, 'shared-key')).status).toBe(200);
    expect((await gw.post(mutate((b) => (b.source.device_name = 'idem-single')), { 'Idempotency-Key': 'shared-key' })).status).toBe(200);
  });
});
