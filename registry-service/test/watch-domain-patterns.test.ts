/**
 * Watch with domain_patterns over a real gRPC server and PostgreSQL: a watcher receives the events,
 * objects and event types of the domains its patterns allow (domainAllowed, as the lists' SQL) and
 * never another domain's; device changes, which have no domain, never pass a set filter.
 */
import { domainAllowed, registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventIds, watch } from './watch-harness.js';

const up = await postgresAvailable();
const PATTERNS = ['wp.cam.*', 'wp.door'];
const filter: registry.EventFilter = { deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: { values: PATTERNS }, occurredSince: undefined, occurredUntil: undefined };

describe.skipIf(!up)('Watch domain_patterns', () => {
  let t: TestRegistry;
  useFreshRegistry((started) => (t = started));

  it('carries only the changes of allowed domains, and no device change', async () => {
    const watcher = watch(t, { filter });
    await watcher.until((m) => m.length >= 1);
    const domains = ['wp.cam.a', 'wp.cam', 'wp.cams.x', 'wp.door', 'wp.door.x', 'wp.cam..x', 'wp.cam.a.b'];
    const sent: Array<{ id: string; domain: string }> = [];
    for (const domain of domains) {
      const event = (await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('dev'), objectDomain: domain } }))).event!;
      sent.push({ id: event.id, domain });
    }
    const allowed = sent.filter((e) => domainAllowed(PATTERNS, e.domain)).map((e) => e.id);
    expect(allowed.length).toBe(3);
    // The last domain is allowed: once its event came, every earlier commit was read.
    await watcher.until((m) => eventIds(m).includes(sent.at(-1)!.id));
    watcher.stop();
    const changes = watcher.messages.filter((m) => !m.keepAlive);
    expect(eventIds(changes)).toEqual(allowed);
    expect(changes.filter((m) => m.device)).toEqual([]);
    expect(changes.filter((m) => m.object).map((m) => m.object!.objectDomain)).toEqual(['wp.cam.a', 'wp.door', 'wp.cam.a.b']);
    expect(changes.filter((m) => m.eventType).map((m) => m.eventType!.domain)).toEqual(['wp.cam.a', 'wp.door', 'wp.cam.a.b']);
  });
});
