/**
 * The lists' domain_patterns filter and ListDevices' created_by_token_id over a real gRPC server and
 * PostgreSQL (a fresh database for this file): each list answers exactly the records whose domain
 * domainAllowed allows, through every page in either order; unset does not filter, set and empty
 * matches nothing; a page token is bound to the patterns; a bad pattern names its place.
 */
import { domainAllowed, registry } from '@dynamic-events/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';
import { expectRefused, tokenApi } from './token-api.js';

const up = await postgresAvailable();
const { SORT_ORDER_OLDEST_FIRST, SORT_ORDER_NEWEST_FIRST } = registry.SortOrder;
const filter = (f: Partial<registry.EventFilter>): registry.EventFilter => ({ deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined, ...f });
const patterns = (...values: string[]): registry.StringList => ({ values });

/** Domains that differ only where a LIKE wildcard, a shared prefix or an empty label would blur them. */
const DOMAINS = ['acme.cam', 'acme.cam.video', 'acme.cam.video.hd', 'acme.cams.x', 'acme.a_b.c', 'acme.axb.c', 'acme.cam..x', 'acme.cam.x.', 'globex.door'];
const PATTERN = fc.oneof(
  fc.constant('*'),
  fc.constantFrom('acme', 'acme.cam', 'acme.cams', 'acme.a_b', 'acme.axb', 'acme.cam.video', 'globex', 'globex.door', 'acme.cam.x').chain((base) => fc.constantFrom(base, `${base}.*`)),
);

let t: TestRegistry;
/** Every recorded event's (id, domain). */
const recorded: Array<{ id: string; domain: string }> = [];
if (up) {
  useFreshRegistry(async (started) => {
    t = started;
  });
}

async function seed(): Promise<void> {
  if (recorded.length > 0) return;
  for (const [i, domain] of DOMAINS.entries()) {
    const events = [0, 1, 2].map((n) => sampleEvent({ source: { deviceName: `dev-${i % 3}`, objectDomain: domain, objectId: `ch-${n % 2}` }, eventType: { eventType: `type-${n % 2}` } }));
    for (const event of (await t.api.recordEvents(events)).events) recorded.push({ id: event!.id, domain: event!.domain });
  }
}

/** Every page of a list, `size` at a time. */
async function allPages<T>(read: (pageToken: string) => Promise<{ items: T[]; next: string }>): Promise<T[]> {
  const items: T[] = [];
  let pageToken = '';
  do {
    const page = await read(pageToken);
    items.push(...page.items);
    pageToken = page.next;
  } while (pageToken !== '');
  return items;
}

const eventsOf = (domainPatterns: registry.StringList | undefined, order: registry.SortOrder) =>
  allPages(async (pageToken) => {
    const page = await t.api.listEvents({ filter: filter({ domainPatterns }), pageSize: 4, pageToken, order });
    return { items: page.events, next: page.nextPageToken };
  });

describe.skipIf(!up)('domain_patterns on the lists', () => {
  it('ListEvents answers exactly the allowed domains, in order, through every page (generated patterns, both orders)', async () => {
    await seed();
    await fc.assert(
      fc.asyncProperty(fc.array(PATTERN, { maxLength: 3 }), fc.constantFrom(SORT_ORDER_NEWEST_FIRST, SORT_ORDER_OLDEST_FIRST), async (values, order) => {
        const events = await eventsOf(patterns(...values), order);
        const expected = recorded.filter((e) => domainAllowed(values, e.domain)).map((e) => e.id);
        expect(events.map((e) => e.id).sort()).toEqual([...expected].sort());
        const keys = events.map((e) => `${e.createdAt!.seconds.padStart(12, '0')}.${String(e.createdAt!.nanos).padStart(9, '0')}/${e.id}`);
        expect(keys).toEqual(order === SORT_ORDER_OLDEST_FIRST ? [...keys].sort() : [...keys].sort().reverse());
      }),
      { numRuns: 25 },
    );
  });

  it('ListObjects and ListEventTypes answer exactly the allowed domains through every page', async () => {
    await seed();
    await fc.assert(
      fc.asyncProperty(fc.array(PATTERN, { maxLength: 3 }), async (values) => {
        const objects = await allPages(async (pageToken) => {
          const page = await t.api.listObjects({ domainPatterns: patterns(...values), pageSize: 3, pageToken });
          return { items: page.objects.map((o) => o.id), next: page.nextPageToken };
        });
        expect(objects).toEqual(DOMAINS.filter((d) => domainAllowed(values, d)).flatMap((d) => [`${d}.ch-0`, `${d}.ch-1`]).sort());
        const types = await allPages(async (pageToken) => {
          const page = await t.api.listEventTypes({ domainPatterns: patterns(...values), pageSize: 3, pageToken });
          return { items: page.eventTypes.map((e) => `${e.domain}/${e.eventType}`), next: page.nextPageToken };
        });
        // In (domain, event_type) order (this database's collation is C: code point order).
        expect(types).toEqual(DOMAINS.filter((d) => domainAllowed(values, d)).sort().flatMap((d) => [`${d}/type-0`, `${d}/type-1`]));
      }),
      { numRuns: 25 },
    );
  });

  it('unset filters nothing; set and empty matches nothing; it combines with the other filters', async () => {
    await seed();
    expect((await eventsOf(undefined, SORT_ORDER_NEWEST_FIRST)).length).toBe(recorded.length);
    expect(await eventsOf(patterns(), SORT_ORDER_NEWEST_FIRST)).toEqual([]);
    expect((await t.api.listObjects({ domainPatterns: patterns() })).objects).toEqual([]);
    expect((await t.api.listEventTypes({ domainPatterns: patterns() })).eventTypes).toEqual([]);
    const page = await t.api.listEvents({ filter: filter({ domainPatterns: patterns('acme.cam.*'), domain: 'acme.cam.video', eventType: 'type-1' }), pageSize: 100 });
    expect(page.events.map((e) => [e.domain, e.eventType])).toEqual([['acme.cam.video', 'type-1']]);
    const outside = await t.api.listEvents({ filter: filter({ domainPatterns: patterns('acme.cam.*'), domain: 'globex.door' }) });
    expect(outside.events).toEqual([]);
  });

  it('binds page tokens to the patterns: other patterns or none are INVALID_ARGUMENT naming page_token, the same ones in another order are not', async () => {
    await seed();
    const first = await t.api.listEvents({ filter: filter({ domainPatterns: patterns('acme.cam.*', 'globex.door') }), pageSize: 2 });
    const pageToken = first.nextPageToken;
    expect(pageToken).not.toBe('');
    const reordered = await t.api.listEvents({ filter: filter({ domainPatterns: patterns('globex.door', 'acme.cam.*') }), pageSize: 2, pageToken });
    expect(reordered.events.length).toBe(2);
    await expectRefused(t.api.listEvents({ filter: filter({ domainPatterns: patterns('acme.cam.*') }), pageSize: 2, pageToken }), 'page_token', 'token');
    await expectRefused(t.api.listEvents({ filter: filter({}), pageSize: 2, pageToken }), 'page_token', 'token');
    const objects = await t.api.listObjects({ domainPatterns: patterns('acme.*'), pageSize: 1 });
    await expectRefused(t.api.listObjects({ pageSize: 1, pageToken: objects.nextPageToken }), 'page_token', 'token');
    const types = await t.api.listEventTypes({ domainPatterns: patterns('acme.*'), pageSize: 1 });
    await expectRefused(t.api.listEventTypes({ domainPatterns: patterns('acme.cam.*'), pageSize: 1, pageToken: types.nextPageToken }), 'page_token', 'token');
  });

  it('refuses a pattern of another shape, naming its place', async () => {
    await expectRefused(t.api.listEvents({ filter: filter({ domainPatterns: patterns('acme.*', 'Acme.cam') }) }), 'domain_patterns[1]', 'domain-pattern');
    await expectRefused(t.api.listObjects({ domainPatterns: patterns('a%') }), 'domain_patterns[0]', 'domain-pattern');
    await expectRefused(t.api.listEventTypes({ domainPatterns: patterns('') }), 'domain_patterns[0]', 'required');
  });
});

describe.skipIf(!up)('ListDevices created_by_token_id', () => {
  it('answers only the devices that token created, through every page; its page tokens are bound to it', async () => {
    const tokens = tokenApi(t.address);
    try {
      const { token } = await tokens.create({ name: unique('creator') });
      const mine = ['own-a', 'own-b', 'own-c'].map(unique);
      for (const device of mine) await t.api.recordEvent(sampleEvent({ source: { deviceName: device }, tokenId: token!.id }));
      await t.api.recordEvent(sampleEvent({ source: { deviceName: unique('other') } }));
      const listed = await allPages(async (pageToken) => {
        const page = await t.api.listDevices({ createdByTokenId: token!.id, pageSize: 1, pageToken });
        return { items: page.devices, next: page.nextPageToken };
      });
      expect(listed.map((d) => d.deviceName)).toEqual([...mine].sort());
      expect(listed.every((d) => d.createdByTokenId === token!.id)).toBe(true);
      const first = await t.api.listDevices({ createdByTokenId: token!.id, pageSize: 1 });
      await expectRefused(t.api.listDevices({ pageSize: 1, pageToken: first.nextPageToken }), 'page_token', 'token');
      await expectRefused(t.api.listDevices({ createdByTokenId: 'not-a-uuid' }), 'created_by_token_id', 'format');
    } finally {
      tokens.close();
    }
  });
});
