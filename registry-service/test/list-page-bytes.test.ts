/**
 * ListEvents pages are cut by bytes as well as by count: a page stops before its events would pass
 * the page budget (a shorter page with a next_page_token), so no page is ever larger than the
 * registry may send, and paging still returns every event once. Real gRPC and PostgreSQL.
 */
import { LIST_PAGE_MAX_BYTES, REGISTRY_MAX_MESSAGE_BYTES, registry } from '@dynamic-events/proto';
import { createGrpcClient } from '@dynamic-events/proto/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { registryApi, sampleEvent, startRegistry, unique, type RegistryApi, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const filter = (f: Partial<registry.EventFilter>): registry.EventFilter => ({ deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined, ...f });

/** An event of `device` carrying about `bytes` bytes in properties of 16,000 characters. */
function eventOf(device: string, bytes: number, i: number): registry.NewEvent {
  const count = Math.max(1, Math.round(bytes / 16_000));
  const additionalProperties = Array.from({ length: count }, (_, k) => ({ key: `p${k}`, value: String.fromCharCode(97 + ((i + k) % 26)).repeat(16_000) }));
  return sampleEvent({ source: { deviceName: device }, additionalProperties });
}

/** Every page of the device's events, newest first, and the encoded size of each page. */
async function pages(api: RegistryApi, device: string, pageSize: number) {
  const seen: registry.Event[][] = [];
  let pageToken = '';
  do {
    const page = await api.listEvents({ filter: filter({ deviceName: device }), pageSize, pageToken });
    seen.push(page.events);
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && seen.length < 100);
  return { pages: seen, sizes: seen.map((events) => registry.ListEventsResponse.encode({ events, nextPageToken: 'x' }).finish().length) };
}

function useRegistry(listPageMaxBytes: number | undefined, ready: (t: TestRegistry) => void): void {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let started: TestRegistry | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    started = await startRegistry({ databaseUrl: db.url, listPageMaxBytes });
    ready(started);
  }, 60_000);
  afterAll(async () => {
    await started?.close();
    await db?.drop();
  });
}

describe.skipIf(!up)('ListEvents pages within a byte budget', () => {
  let t: TestRegistry;
  const budget = 120_000;
  useRegistry(budget, (started) => (t = started));

  it('cuts a page before its events pass the budget, and pages through every event once', async () => {
    const device = unique('cam');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(...(await t.api.recordEvents([eventOf(device, 32_000, i)])).events.map((e) => e!.id));
    const { pages: all, sizes } = await pages(t.api, device, 100);
    expect(all.map((p) => p.length)).toEqual([3, 3, 1]);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(budget);
    expect(all.flat().map((e) => e.id)).toEqual([...ids].reverse());
  });

  it('still answers one event per page when a single event is above the budget', async () => {
    const device = unique('cam');
    for (let i = 0; i < 3; i++) await t.api.recordEvents([eventOf(device, 150_000, i)]);
    const { pages: all } = await pages(t.api, device, 10);
    expect(all.map((p) => p.length)).toEqual([1, 1, 1]);
    expect(all.flat().every((e) => Object.keys(e.additionalProperties).length > 0)).toBe(true);
  });

  it('keeps the page size when it is the tighter bound', async () => {
    const device = unique('cam');
    for (let i = 0; i < 5; i++) await t.api.recordEvents([eventOf(device, 100, i)]);
    expect((await pages(t.api, device, 2)).pages.map((p) => p.length)).toEqual([2, 2, 1]);
  });
});

describe.skipIf(!up)('ListEvents of events larger in total than a gRPC message', () => {
  let t: TestRegistry;
  useRegistry(undefined, (started) => (t = started));

  it('the default budget leaves room for one more largest event under the message cap', () => {
    // A page holds events up to the budget, or one event alone; an accepted event is below the request cap.
    expect(LIST_PAGE_MAX_BYTES * 2).toBeLessThan(REGISTRY_MAX_MESSAGE_BYTES);
  });

  it('answers seventeen 4 MB events asked as one page of 20 in several pages, never RESOURCE_EXHAUSTED', async () => {
    // A client that sends and receives what the gateway's does.
    const client = createGrpcClient(registry.RegistryServiceClient, t.address, { maxMessageBytes: REGISTRY_MAX_MESSAGE_BYTES });
    const api = registryApi(client);
    const device = unique('cam');
    for (let i = 0; i < 17; i += 4) await api.recordEvents(Array.from({ length: Math.min(4, 17 - i) }, (_, k) => eventOf(device, 4_000_000, i + k)));
    const { pages: all, sizes } = await pages(api, device, 20).finally(() => client.close());
    expect(all.flat()).toHaveLength(17);
    expect(all.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(LIST_PAGE_MAX_BYTES);
  }, 120_000);
});
