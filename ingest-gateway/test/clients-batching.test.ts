/** The registry client's batching: concurrent events coalesce into RecordEvents calls, bounded by count, bytes and queue. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { createRegistryClient } from '../src/clients/registry.js';
import { deferred, input, registryAddress, registryClient, seen, startFakeServices, stopFakeServices, TEST_BATCHING } from './grpc-fakes.js';

/** Taken before any test fakes the timers. */
const realSetTimeout = globalThis.setTimeout;

/** Holds RecordEvents calls naming the device "stall" until released. */
let stall = deferred();

beforeAll(() => startFakeServices(() => stall.promise));
afterAll(stopFakeServices);

describe('registry client', () => {
  it('coalesces concurrent events into RecordEvents calls; each caller gets its own event and its request id travels', async () => {
    seen.calls.length = 0;
    const devices = Array.from({ length: 40 }, (_, i) => `cam-${i}`);
    const events = await Promise.all(devices.map((d, i) => registryClient.recordEvent(input(d), { requestId: `batch-${i}` })));
    // Submitted in one event-loop turn: far fewer calls than events (at most one per free slot).
    expect(seen.calls.reduce((a, b) => a + b, 0)).toBe(40);
    expect(seen.calls.length).toBeLessThanOrEqual(TEST_BATCHING.maxInFlight);
    expect(new Set(events.map((e) => e.id)).size).toBe(40);
    expect(seen.requests.slice(-40).map((e) => e.source!.deviceName).sort()).toEqual([...devices].sort());
    expect(seen.requestIds.slice(-40).sort()).toEqual(devices.map((_, i) => `batch-${i}`).sort());
  });

  it('sends a lone event at once, without waiting on a timer', async () => {
    seen.calls.length = 0;
    // Timers frozen while it is sent: a batcher that waited for a window on a timer would never send
    // it (the guard keeps a real timer); this one waits for the end of an event-loop turn.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    let sent: string;
    try {
      const call = registryClient.recordEvent(input(), { requestId: 'alone' });
      const guard = new Promise<string>((resolve) => realSetTimeout(() => resolve('not sent'), 10_000));
      sent = await Promise.race([call.then(() => 'sent'), guard]);
    } finally {
      vi.useRealTimers();
    }
    expect(sent).toBe('sent');
    expect(seen.calls).toEqual([1]);
  });

  it('fails only the event the registry refused; the others of the same call are recorded', async () => {
    // One slot: the three events travel in one call.
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1 } });
    seen.calls.length = 0;
    const results = await Promise.allSettled(['cam-a', 'refused', 'cam-b'].map((d) => client.recordEvent(input(d), { requestId: d })));
    client.close();
    expect(seen.calls).toEqual([3]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (results[1] as PromiseRejectedResult).reason as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'source.device_name must be at most 255 characters', details: { field: 'source.device_name', rule: 'max-length' } });
  });

  it('cuts batches by bytes as well as by count', async () => {
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1, maxBatchBytes: 2000 } });
    try {
      seen.calls.length = 0;
      // About 600 encoded bytes each: three fit under 2,000 bytes, a fourth does not.
      await Promise.all(Array.from({ length: 12 }, (_, i) => client.recordEvent({ ...input(`bytes-${i}`), properties: [{ key: 'k', value: 'x'.repeat(400) }] }, { requestId: 'b' })));
      expect(seen.calls.reduce((a, b) => a + b, 0)).toBe(12);
      expect(Math.max(...seen.calls)).toBe(3);
    } finally {
      client.close();
    }
  });

  it('answers UNAVAILABLE (retry after 1 s) at once when its queue is full, instead of growing it', async () => {
    const client = createRegistryClient(registryAddress, { deadlineMs: 5000, batching: { ...TEST_BATCHING, maxInFlight: 1, maxQueuedEvents: 2 } });
    stall = deferred();
    try {
      const held = client.recordEvent(input('stall'), { requestId: 's' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the stalled call is out, its slot taken
      const queued = [client.recordEvent(input('q1'), { requestId: 'q1' }), client.recordEvent(input('q2'), { requestId: 'q2' })];
      const refused = await client.recordEvent(input('q3'), { requestId: 'q3' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'UNAVAILABLE', details: { rule: 'overloaded', retryAfterSeconds: 1 } });
      stall.resolve();
      await expect(held).resolves.toMatchObject({ domain: 'acme.camera' });
      expect((await Promise.all(queued)).map((e) => e.domain)).toEqual(['acme.camera', 'acme.camera']);
    } finally {
      stall.resolve();
      client.close();
    }
  });
});
