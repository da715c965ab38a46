/** The identity check before an image is stored: one lookup per unknown object, none for a known owner. */
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { createIdentityGuard } from '../src/ingest/identity-guard.js';
import type { EventInput, ObjectRecord } from '../src/model.js';

function input(objectDomain: string, objectId: string): EventInput {
  return { source: { deviceName: 'd', objectDomain, objectId, objectName: 'n', objectType: 't' }, eventType: { eventType: 'e', displayName: 'E', displayDescription: 'D' }, properties: [], images: [], videoClips: [] };
}

function registryWith(objects: Record<string, Pick<ObjectRecord, 'objectDomain' | 'objectId'>>) {
  const lookups: string[] = [];
  return {
    lookups,
    async getObject(id: string) {
      lookups.push(id);
      const found = objects[id];
      if (!found) throw new AppError('NOT_FOUND', `object ${id} not found`);
      return { id, ...found, objectName: 'n', objectType: 't', deviceName: 'd', createdAt: '', updatedAt: '', createdByTokenId: null, lastSeenAt: null };
    },
  };
}

const call = { requestId: 'r' };

describe('identity guard', () => {
  it('refuses a pair that spells an existing identifier with another domain, naming the owner', async () => {
    const registry = registryWith({ 'col.a.b.c': { objectDomain: 'col.a.b', objectId: 'c' } });
    const guard = createIdentityGuard(registry);
    await expect(guard.check(input('col.a', 'b.c'), call)).rejects.toMatchObject({ code: 'ALREADY_EXISTS', details: { field: 'source.object_id', rule: 'identity-conflict' } });
    // Known now: refused again without a lookup.
    await expect(guard.check(input('col.a', 'b.c'), call)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(registry.lookups).toEqual(['col.a.b.c']);
  });

  it('lets the owner and new objects through; a known owner costs no lookup', async () => {
    const registry = registryWith({ 'col.a.b.c': { objectDomain: 'col.a.b', objectId: 'c' } });
    const guard = createIdentityGuard(registry);
    await guard.check(input('col.a.b', 'c'), call);
    await guard.check(input('col.a.b', 'c'), call);
    await guard.check(input('new.x', 'y'), call);
    guard.learn('new.x', 'y');
    await guard.check(input('new.x', 'y'), call);
    expect(registry.lookups).toEqual(['col.a.b.c', 'new.x.y']);
  });

  it('passes outages through (the caller gets 503, not a guess)', async () => {
    const guard = createIdentityGuard({ getObject: () => Promise.reject(new AppError('UNAVAILABLE', 'the event store is unavailable; retry later')) });
    await expect(guard.check(input('a.b', 'c'), call)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
