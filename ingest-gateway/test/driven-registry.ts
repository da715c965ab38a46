/**
 * Test support for the WatchHub tests: a registry whose Watch streams the test drives by hand, and
 * clients of the hub that read their chunks in the background.
 */
import type { RegistryClient } from '../src/clients/registry.js';
import type { WatchChange, WatchMessage } from '../src/model.js';
import { WatchHub, type WatchQuery } from '../src/watch/watch-hub.js';
import { CREATED_AT } from './fake-registry.js';

/** A registry Watch the test feeds by hand. */
interface DrivenStream {
  query: WatchQuery;
  signal: AbortSignal;
  send(...cursors: string[]): void;
  fail(err: unknown): void;
}

export function drivenRegistry(options: { catchUpStreams?: number } = {}) {
  const streams: DrivenStream[] = [];
  const watch = (query: WatchQuery, call: { signal: AbortSignal }) => {
    const queue: WatchMessage[] = [{ cursor: 'ka', changes: [] }];
    let error: unknown;
    let wake = () => {};
    const stream: DrivenStream = {
      query,
      signal: call.signal,
      send: (...cursors) => (queue.push({ cursor: cursors.at(-1)!, changes: cursors.map(change) }), wake()),
      fail: (err) => ((error = err), wake()),
    };
    streams.push(stream);
    return (async function* () {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (error !== undefined) throw error;
        if (call.signal.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          call.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    })();
  };
  const hub = new WatchHub({ registry: { watch } as unknown as RegistryClient, maxLagBytes: 2000, ...options });
  return { streams, hub };
}

function change(cursor: string): WatchChange {
  const event = { id: `e-${cursor}`, domain: 'd', eventType: 't', rels: [], images: [], videoClips: [], properties: [], createdAt: CREATED_AT, updatedAt: CREATED_AT, tokenId: null, occurredAt: null };
  return { cursor, kind: 'event.created', event };
}

export const query = (over: Partial<WatchQuery> = {}): WatchQuery => ({ kinds: [], afterCursor: '', ...over });

/** A client of the hub: its chunks read in the background, the ids seen so far. */
export async function client(hub: WatchHub, q: WatchQuery) {
  const leave = new AbortController();
  const chunks = await hub.subscribe(q, { requestId: 'r', signal: leave.signal });
  let text = '';
  const done = (async () => {
    for await (const chunk of chunks) text += chunk.toString();
  })();
  const ids = () => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
  const until = async (n: number) => {
    // A deadline, not a count of pauses: a busy machine stretches each one.
    for (const deadline = Date.now() + 10_000; ids().length < n && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    return ids();
  };
  return { ids, until, text: () => text, done, leave: () => leave.abort() };
}
