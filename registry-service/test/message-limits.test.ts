/**
 * The registry's channel limits: a reply carries each event back and is larger than its request, so
 * the registry receives less than it may send (REGISTRY_MAX_REQUEST_BYTES). That only holds if no
 * event's reply outgrows its request by more than REPLY_OVERHEAD_PER_EVENT_BYTES: checked here on
 * the worst case the rules allow (longest four-byte names, the object id percent-encoded in its rel).
 */
import { LIMITS, registry, REGISTRY_MAX_MESSAGE_BYTES, REGISTRY_MAX_REQUEST_BYTES, REPLY_OVERHEAD_PER_EVENT_BYTES } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();

/** The longest value a name may have, in four-byte characters (each is two UTF-16 units, one code point). */
const longest = (prefix: string) => `${prefix}${'\u{1D11E}'.repeat(LIMITS.nameMaxLength - prefix.length)}`;

function worstCase(n: number): registry.NewEvent {
  return sampleEvent({
    source: { deviceName: longest(`d${n}-`), objectId: longest(`o${n}?#%/`), objectDomain: longest('w.'), objectName: 'n', objectType: 't' },
    eventType: { eventType: longest(`t${n}-`), displayName: 'E', displayDescription: 'D' },
    additionalProperties: [{ key: 'k', value: 'v' }],
    images: [],
    videoClips: [],
  });
}

describe('message size limits', () => {
  it('leave room for every event of the largest batch to grow by the reply overhead', () => {
    expect(REGISTRY_MAX_REQUEST_BYTES + LIMITS.batchMaxEvents * REPLY_OVERHEAD_PER_EVENT_BYTES).toBeLessThanOrEqual(REGISTRY_MAX_MESSAGE_BYTES);
    // The largest single event the limits allow (≈ 18 MB) fits a request with room to spare.
    const properties = LIMITS.propertiesMaxCount * 4 * (LIMITS.propertyKeyMaxLength + LIMITS.propertyValueMaxLength);
    const urls = (2 * LIMITS.urlsMaxCount + 1) * 4 * LIMITS.urlMaxLength;
    expect(properties + urls + 64 * 1024).toBeLessThan(REGISTRY_MAX_REQUEST_BYTES);
  });
});

describe.skipIf(!up)('replies of the registry', () => {
  let reg: TestRegistry;
  useFreshRegistry((started) => (reg = started));

  it('outgrow their request by at most REPLY_OVERHEAD_PER_EVENT_BYTES per event, in the worst case', async () => {
    const tag = unique('m');
    const events = Array.from({ length: 20 }, (_, i) => worstCase(i + tag.length));
    const request: registry.RecordEventsRequest = { events, requestIds: events.map(() => '00000000-0000-4000-8000-000000000000') };
    const response = await new Promise<registry.RecordEventsResponse>((resolve, reject) =>
      reg.client.recordEvents(request, (err, value) => (err ? reject(err) : resolve(value!))),
    );
    expect(response.results.every((r) => r.recorded)).toBe(true);
    const grown = registry.RecordEventsResponse.encode(response).finish().length - registry.RecordEventsRequest.encode(request).finish().length;
    expect(grown).toBeGreaterThan(0);
    expect(grown / events.length).toBeLessThanOrEqual(REPLY_OVERHEAD_PER_EVENT_BYTES);
  });
});
