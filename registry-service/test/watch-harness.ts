/**
 * Shared set-up of the watch-*.test.ts files: Watch over real gRPC servers and PostgreSQL, a watcher
 * that collects what a stream carries, and test-only knowledge of the cursor format.
 */
import { callStream } from '@dynamic-events/proto/runtime';
import { registry, type AppError } from '@dynamic-events/proto';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '../../test/support/servers.js';
import { startRegistry, type TestRegistry } from './helpers.js';

export const { WATCH_KIND_EVENT_CREATED, WATCH_KIND_DEVICE_CREATED } = registry.WatchKind;

/** One change received, or a keep-alive (a response without changes), flattened for assertions. */
export type Msg = Partial<registry.WatchChange> & { cursor: string; keepAlive?: true };

/** A response as the list of what it carries, in order. */
export const flatten = (m: registry.WatchResponse): Msg[] => (m.changes.length === 0 ? [{ cursor: m.cursor, keepAlive: true }] : m.changes);

export interface Watcher {
  messages: Msg[];
  /** Resolves when `predicate` holds for the messages so far (rejects after 10 s). */
  until(predicate: (m: Msg[]) => boolean): Promise<void>;
  stop(): void;
  /** Settles when the stream ends: undefined, or the AppError it ended with. */
  ended: Promise<AppError | undefined>;
}

export function watch(t: TestRegistry, request: Partial<registry.WatchRequest> = {}): Watcher {
  const abort = new AbortController();
  const messages: Msg[] = [];
  const checks: Array<() => void> = [];
  const full = { filter: undefined, kinds: [], afterCursor: '', ...request };
  const ended = (async () => {
    try {
      for await (const m of callStream(t.client.watch.bind(t.client), full, { deadlineMs: 60_000, signal: abort.signal })) {
        messages.push(...flatten(m));
        for (const check of checks) check();
      }
      return undefined;
    } catch (err) {
      return err as AppError;
    } finally {
      for (const check of checks) check();
    }
  })();
  return {
    messages,
    ended,
    stop: () => abort.abort(),
    until: (predicate) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`watch condition not met; ${messages.length} messages`)), 10_000);
        const check = () => {
          if (predicate(messages)) {
            clearTimeout(timer);
            resolve();
          }
        };
        checks.push(check);
        check();
      }),
  };
}

export const eventIds = (messages: Msg[]) => messages.filter((m) => m.event).map((m) => m.event!.id);

/** A cursor's (commit number, position) as one comparable number (test-only knowledge of the format). */
export function rankOf(cursor: string): bigint {
  const doc = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { s: string; i: number | 'end' };
  return BigInt(doc.s) * 1_000_000n + (doc.i === 'end' ? 999_999n : BigInt(doc.i));
}

/** A cursor with one field changed (test-only knowledge of the format). */
export function editCursor(cursor: string, change: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), ...change })).toString('base64url');
}

const row = (id: string, device: string, objectId: string) => ({
  id,
  objectRef: `acme.camera.lpr.${objectId}`,
  deviceName: device,
  domain: 'acme.camera.lpr',
  eventType: 'plate_detected',
  images: [],
  videoClips: [],
  properties: [],
  tokenId: undefined,
});

/** One event with its device, object and type, as the write statement takes it. */
export const batch = (id: string, device: string, objectId = 'late-1') => ({
  devices: [{ name: device, tokenId: undefined }],
  objects: [{ id: `acme.camera.lpr.${objectId}`, objectDomain: 'acme.camera.lpr', objectId, objectName: 'n', objectType: 't', deviceName: device, tokenId: undefined }],
  types: [{ domain: 'acme.camera.lpr', eventType: 'plate_detected', displayName: 'd', displayDescription: 'd', tokenId: undefined }],
  events: [row(id, device, objectId)],
});

/** Two registry replicas on one fresh database (keep-alives every 300 ms), for the tests of one describe. */
export function useTwoReplicas(ready: (a: TestRegistry, b: TestRegistry) => void): void {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let a: TestRegistry | undefined;
  let b: TestRegistry | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startRegistry({ databaseUrl: db.url, watchKeepAliveMs: 300 });
    b = await startRegistry({ databaseUrl: db.url, watchKeepAliveMs: 300 });
    ready(a, b);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });
}
