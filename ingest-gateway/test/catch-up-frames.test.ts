/**
 * The frames the hub keeps for catch-up streams (clients resuming together from the same older
 * commits share their rendering) are kept only while a catch-up runs or waits: the last one to end
 * lets them go, so a gateway that served a resume storm of large events does not keep them idle.
 */
import { describe, expect, it } from 'vitest';
import { client, drivenRegistry, query } from './driven-registry.js';

describe('WatchHub: frames kept for catch-up streams', () => {
  it('shares them between catch-ups, and lets them go when the last one ends', async () => {
    const { streams, hub } = drivenRegistry();
    const a = await client(hub, query({ afterCursor: 'c1' }));
    const b = await client(hub, query({ afterCursor: 'c1' }));
    expect(streams.map((s) => s.query.afterCursor)).toEqual(['', 'c1', 'c1']);
    streams[1]!.send('c2', 'c3');
    streams[2]!.send('c2', 'c3');
    expect(await a.until(2)).toEqual(['c2', 'c3']);
    expect(await b.until(2)).toEqual(['c2', 'c3']);
    expect(hub.framesKept).toBe(2);
    a.leave();
    await a.done;
    expect(hub.framesKept).toBe(2);
    b.leave();
    await b.done;
    expect(hub.framesKept).toBe(0);
  });

  it('lets them go when the last catch-up moves onto the feed', async () => {
    const { streams, hub } = drivenRegistry();
    const live = await client(hub, query());
    streams[0]!.send('c4');
    await live.until(1);
    const old = await client(hub, query({ afterCursor: 'c1' }));
    streams[1]!.send('c2', 'c3');
    expect(await old.until(2)).toEqual(['c2', 'c3']);
    expect(hub.framesKept).toBe(2);
    // c4 is the feed's: the catch-up ends there and the client reads on from the feed.
    streams[1]!.send('c4');
    expect(await old.until(3)).toEqual(['c2', 'c3', 'c4']);
    expect(hub.framesKept).toBe(0);
    live.leave();
    old.leave();
  });
});
