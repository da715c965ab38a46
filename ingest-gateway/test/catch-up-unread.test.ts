/**
 * A catch-up whose response ends before it asks for its first chunk (the route returns its chunks
 * unread) gives back what it holds: its registry stream, its catch-up slot and the feed it kept.
 */
import { describe, expect, it } from 'vitest';
import { client, drivenRegistry, query } from './driven-registry.js';

describe('WatchHub: a catch-up returned unread', () => {
  it('gives back its registry stream, its slot and the feed', async () => {
    const { streams, hub } = drivenRegistry({ catchUpStreams: 1 });
    const chunks = await hub.subscribe(query({ afterCursor: 'c1' }), { requestId: 'r', signal: new AbortController().signal });
    expect(streams.map((s) => s.query.afterCursor)).toEqual(['', 'c1']);
    await chunks.return?.();
    expect(streams[1]!.signal.aborted).toBe(true);
    // Nobody reads or waits for the feed any more.
    expect(streams[0]!.signal.aborted).toBe(true);
    // The one slot is free again: the next catch-up gets a stream of its own.
    const next = await client(hub, query({ afterCursor: 'c1' }));
    expect(streams.at(-1)!.query.afterCursor).toBe('c1');
    streams.at(-1)!.send('c2');
    expect(await next.until(1)).toEqual(['c2']);
    next.leave();
    await next.done;
    expect(hub.framesKept).toBe(0);
  });
});
