import { registry } from '@dynamic-events/proto';
import type { Change } from '../domain/commit-feed.js';
import type { WatchMessage } from '../domain/watch.js';
import { toWatchChange } from './to-proto.js';

/**
 * Watch responses whose changes are built and encoded once for every watcher: watchers reading the
 * same page share its change objects, so each change is turned into protobuf and into bytes once,
 * and a response is the concatenation of its changes' bytes (field 1, repeated WatchChange) and its
 * cursor (field 2), exactly what WatchResponse.encode would write.
 */
export interface WatchEncoding {
  toResponse(message: WatchMessage): registry.WatchResponse;
  /** A drop-in responseSerialize for the Watch method. */
  serialize(response: registry.WatchResponse): Buffer;
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

function field(tag: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.of(tag), varint(payload.length), payload]);
}

export function createWatchEncoding(): WatchEncoding {
  const changes = new WeakMap<Change, registry.WatchChange>();
  const encoded = new WeakMap<registry.WatchChange, Buffer>();
  // Each change as field 1 of a WatchResponse (tag, length, message), built once.
  const bytesOf = (change: registry.WatchChange): Buffer => {
    let bytes = encoded.get(change);
    if (!bytes) encoded.set(change, (bytes = field(0x0a, Buffer.from(registry.WatchChange.encode(change).finish()))));
    return bytes;
  };
  return {
    toResponse(message) {
      return {
        cursor: message.cursor,
        changes: message.changes.map((positioned) => {
          let change = changes.get(positioned.change);
          if (!change) changes.set(positioned.change, (change = toWatchChange(positioned)));
          return change;
        }),
      };
    },
    serialize(response) {
      const parts = response.changes.map(bytesOf);
      if (response.cursor !== '') parts.push(field(0x12, Buffer.from(response.cursor, 'utf8')));
      return Buffer.concat(parts);
    },
  };
}
