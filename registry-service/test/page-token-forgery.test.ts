/**
 * Forged and foreign page tokens over a real gRPC server and PostgreSQL: whatever a caller writes
 * into a token (a position out of range, U+0000, wrong types, a lone surrogate), the answer is
 * INVALID_ARGUMENT naming page_token, never INTERNAL and never another field.
 */
import { AppError, registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { sampleEvent, unique, useFreshRegistry, type TestRegistry } from './helpers.js';

const up = await postgresAvailable();
const filter = (f: Partial<registry.EventFilter>): registry.EventFilter => ({ deviceName: '', object: '', domain: '', eventType: '', since: undefined, until: undefined, tokenId: '', domainPatterns: undefined, occurredSince: undefined, occurredUntil: undefined, ...f });

let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

/** The same token with its position replaced: what a caller who edits a token sends. */
function forge(token: string, position: unknown): string {
  const doc = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...doc, p: position })).toString('base64url');
}

/** How a call ended, as the comparison below reads it. */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  const err = await call().then(() => undefined, (e: unknown) => e);
  if (!(err instanceof AppError)) return err === undefined ? 'accepted' : String(err);
  return `${err.code} field=${String(err.details.field)} names=${err.message.includes('page_token')}`;
}

const ID = '0190b7a0-0000-7000-8000-000000000000';

describe.skipIf(!up)('forged page tokens', () => {
  it('refuses every forged position with INVALID_ARGUMENT naming page_token', async () => {
    const domain = unique('acme');
    // Two of each: every list has a second page.
    const events = ['a', 'b'].map((x) => sampleEvent({ source: { deviceName: unique(`cam-${x}`), objectDomain: domain, objectId: x }, eventType: { eventType: x } }));
    for (const event of events) await t.api.recordEvents([event]);
    const eventsPage = await t.api.listEvents({ filter: filter({}), pageSize: 1 });
    const devicesPage = await t.api.listDevices({ pageSize: 1 });
    const objectsPage = await t.api.listObjects({ pageSize: 1 });
    const typesPage = await t.api.listEventTypes({ pageSize: 1 });
    for (const page of [eventsPage, devicesPage, objectsPage, typesPage]) expect(page.nextPageToken).not.toBe('');

    const listEvents = (position: unknown) => () => t.api.listEvents({ filter: filter({}), pageSize: 1, pageToken: forge(eventsPage.nextPageToken, position) });
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['events: micros far beyond any date', listEvents(['9999999999999999999', ID])],
      ['events: micros far before any date', listEvents(['-9999999999999999999', ID])],
      ['events: the first microsecond of year 10000', listEvents(['253402300800000000', ID])],
      ['events: the microsecond before year 0001', listEvents(['-62135596800000001', ID])],
      ['events: micros as a number', listEvents([1, ID])],
      ['events: a NUL in the micros', listEvents(['1\u00000', ID])],
      ['events: a NUL in the id', listEvents(['1', `${ID}\u0000`])],
      ['events: an object position', listEvents({ 0: '1', 1: ID })],
      ['events: null', listEvents(null)],
      ['devices: a NUL in the name', () => t.api.listDevices({ pageSize: 1, pageToken: forge(devicesPage.nextPageToken, ['a\u0000b']) })],
      ['devices: a lone surrogate', () => t.api.listDevices({ pageSize: 1, pageToken: forge(devicesPage.nextPageToken, ['a\ud800']) })],
      ['devices: a number', () => t.api.listDevices({ pageSize: 1, pageToken: forge(devicesPage.nextPageToken, [7]) })],
      ['objects: a NUL in the id', () => t.api.listObjects({ pageSize: 1, pageToken: forge(objectsPage.nextPageToken, ['\u0000']) })],
      ['event types: a NUL in the domain', () => t.api.listEventTypes({ pageSize: 1, pageToken: forge(typesPage.nextPageToken, ['a\u0000', 'b']) })],
      ['event types: a NUL in the type', () => t.api.listEventTypes({ pageSize: 1, pageToken: forge(typesPage.nextPageToken, ['a', 'b\u0000']) })],
      ['event types: too short', () => t.api.listEventTypes({ pageSize: 1, pageToken: forge(typesPage.nextPageToken, ['a']) })],
    ];
    const outcomes: string[] = [];
    for (const [what, call] of cases) outcomes.push(`${what}: ${await outcome(call)}`);
    expect(outcomes).toEqual(cases.map(([what]) => `${what}: INVALID_ARGUMENT field=page_token names=true`));
  });

  it('still accepts the extreme positions a real list could hand out', async () => {
    const eventsPage = await t.api.listEvents({ filter: filter({}), pageSize: 1 });
    for (const micros of ['253402300799999999', '-62135596800000000']) {
      const page = await t.api.listEvents({ filter: filter({}), pageSize: 1, pageToken: forge(eventsPage.nextPageToken, [micros, ID]) });
      expect(Array.isArray(page.events)).toBe(true);
    }
  });
});
