/** FindRequestKeys on a real PostgreSQL: the committed keys of one scope with their request hashes; it writes nothing. */
import { randomUUID } from 'node:crypto';
import { callUnary } from '@dynamic-events/proto/runtime';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

const find = (tokenId: string, idempotencyKeys: string[]) => callUnary(t.client.findRequestKeys.bind(t.client), { tokenId, idempotencyKeys }, { deadlineMs: 10_000 });

describe.skipIf(!up)('FindRequestKeys', () => {
  it('answers the committed keys among those asked, with the hash of the request that used each', async () => {
    const [k1, k2] = [unique('key'), unique('key')];
    await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('cam') }, idempotencyKey: k1, requestHash: 'hash-1' }));
    const { keys } = await find('', [k1, k2]);
    expect(keys).toEqual([{ idempotencyKey: k1, requestHash: 'hash-1' }]);
    // Keys are scoped by token: another scope has none of them.
    expect((await find(randomUUID(), [k1])).keys).toEqual([]);
    expect((await find('', [])).keys).toEqual([]);
  });

  it('refuses a key of the wrong shape, a token id that is not one, and more than 1000 keys', async () => {
    await expect(find('', ['\u0000'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(find('not-a-token', ['k'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: expect.objectContaining({ field: 'token_id' }) });
    await expect(find('', Array.from({ length: 1001 }, (_, i) => `k${i}`))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: expect.objectContaining({ field: 'idempotency_keys' }) });
  });
});
