/**
 * What a watcher receives is what a read returns: the same event record, on the replica that wrote
 * it and on another one. Pins the record's shape against any shortcut on the way (for instance
 * events handed from the writer to the feed instead of read back: their properties must come in
 * the order jsonb keeps them, not the order they were sent in).
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, type TestRegistry } from './helpers.js';
import { eventIds, useTwoReplicas, watch, WATCH_KIND_EVENT_CREATED } from './watch-harness.js';

const up = await postgresAvailable();

describe.skipIf(!up)('Watch records', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  useTwoReplicas((first, second) => {
    a = first;
    b = second;
  });

  it('carries each event exactly as GetEvent returns it, on the writing replica and on the other', async () => {
    const device = unique('same');
    const onlyDevice = { filter: { deviceName: device, object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined }, kinds: [WATCH_KIND_EVENT_CREATED] };
    const onA = watch(a, onlyDevice);
    const onB = watch(b, onlyDevice);
    await Promise.all([onA.until((m) => m.length >= 1), onB.until((m) => m.length >= 1)]);
    // Keys out of jsonb's order (shorter first, then bytewise in UTF-8), one of them not ASCII.
    const additionalProperties = [
      { key: 'zone', value: 'lobby' },
      { key: 'é', value: '1' },
      { key: 'b', value: '2' },
      { key: 'confidence', value: '0.9' },
      { key: 'a', value: '3' },
    ];
    const { events } = await a.api.recordEvents([sampleEvent({ source: { deviceName: device }, additionalProperties }), sampleEvent({ source: { deviceName: device } })]);
    const ids = events.map((e) => e!.id);
    await Promise.all([onA.until((m) => eventIds(m).length >= 2), onB.until((m) => eventIds(m).length >= 2)]);
    const read = await Promise.all(ids.map(async (id) => (await b.api.getEvent(id)).event!));
    expect(read[0]!.additionalProperties.map((p) => p.key)).toEqual(['a', 'b', 'é', 'zone', 'confidence']);
    for (const w of [onA, onB]) {
      expect(eventIds(w.messages)).toEqual(ids);
      expect(w.messages.filter((m) => m.event).map((m) => m.event)).toEqual(read);
      w.stop();
    }
  });
});
