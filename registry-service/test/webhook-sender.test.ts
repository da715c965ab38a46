/** The webhook sender's shutdown: attempts in flight get a grace, then are cut, so a stop never waits for WEBHOOK_TIMEOUT_MS. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../test/support/webhook-receiver.js';
import { createAddressGuard } from '../src/webhooks/address-guard.js';
import { createSender } from '../src/webhooks/sender.js';

let silent: Receiver;
beforeAll(async () => {
  silent = await startReceiver({ answer: () => {} });
});
afterAll(() => silent.close());

describe('webhook sender shutdown', () => {
  it('cuts an attempt that is still waiting once the grace is over', async () => {
    const sender = createSender({ guard: createAddressGuard({ allowedNetworks: ['127.0.0.0/8'] }), timeoutMs: 60_000, connectionsPerOrigin: 2, userAgent: 'test' });
    const attempt = sender.send(silent.url, {}, '{}');
    await silent.waitFor(1);
    const started = Date.now();
    await sender.close(300);
    const result = await attempt;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.statusCode).toBeUndefined();
    expect(result.error).not.toBe('');
  });
});
