/** The Watch response encoding shared by watchers writes exactly what the generated encoder writes. */
import { registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import type { Change } from '../src/watch/commit-feed.js';
import { createWatchEncoding } from '../src/rpc/watch-encoding.js';

const times = { createdAtMicros: 1_795_000_000_000_000n, updatedAtMicros: 1_795_000_000_000_001n };

function eventChange(value: string): Change {
  return {
    kind: 'event',
    event: {
      id: '0193a1b2-0000-7000-8000-000000000001',
      domain: 'acme.cam',
      eventType: 'motion',
      deviceName: 'cam-1',
      objectId: 'ch-1',
      rels: ['/objects/acme.cam.ch-1'],
      images: ['https://example.test/a.jpg'],
      videoClips: [],
      properties: [{ key: 'k', value }],
      tokenId: undefined,
      ...times,
    },
  };
}

describe('Watch response encoding', () => {
  it.each([
    ['a keep-alive', []],
    ['small changes of every kind', [
      { kind: 'device', device: { deviceName: 'cam-1', kind: 'generic', ...times } },
      { kind: 'object', object: { id: 'acme.cam.ch-1', objectDomain: 'acme.cam', objectId: 'ch-1', objectName: 'n', objectType: 't', deviceName: 'cam-1', ...times } },
      { kind: 'event_type', eventType: { domain: 'acme.cam', eventType: 'motion', displayName: 'M', displayDescription: 'd', ...times } },
      eventChange('v'),
    ]],
    ['events whose lengths need two and three varint bytes', [eventChange('x'.repeat(200)), eventChange('é'.repeat(20_000))]],
  ] as Array<[string, Change[]]>)('%s: byte for byte what WatchResponse.encode writes', (_, changes) => {
    const encoding = createWatchEncoding();
    const message = { cursor: 'cursor-after', changes: changes.map((change, i) => ({ cursor: `c${i}`, change })) };
    const response = encoding.toResponse(message);
    expect(encoding.serialize(response)).toEqual(Buffer.from(registry.WatchResponse.encode(response).finish()));
    expect(registry.WatchResponse.decode(encoding.serialize(response))).toEqual(response);
    // A stream counts a message by sizeOf before it serializes it.
    expect(encoding.sizeOf(response)).toBe(encoding.serialize(response).length);
  });

  it('builds each change once for every watcher that reads it', () => {
    const encoding = createWatchEncoding();
    const change = eventChange('v');
    const a = encoding.toResponse({ cursor: 'c0', changes: [{ cursor: 'c0', change }] });
    const b = encoding.toResponse({ cursor: 'c0', changes: [{ cursor: 'c0', change }] });
    expect(a.changes[0]).toBe(b.changes[0]);
  });

  it('an encode that throws half-way leaves nothing behind for the next change (the writer is shared)', () => {
    const encoding = createWatchEncoding();
    // The cursor is written, then the kind (not an int32) throws: those bytes must not leak.
    const broken = { cursor: 'c-broken', kind: 1.5 } as unknown as registry.WatchChange;
    expect(() => encoding.serialize({ cursor: 'after', changes: [broken] })).toThrow();
    const response = encoding.toResponse({ cursor: 'c0', changes: [{ cursor: 'c0', change: eventChange('v') }] });
    expect(encoding.serialize(response)).toEqual(Buffer.from(registry.WatchResponse.encode(response).finish()));
  });
});
