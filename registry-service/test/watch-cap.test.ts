/**
 * MAX_WATCHES: the registry serves at most that many Watch streams at once, whichever gateways open
 * them; the next one ends at once with UNAVAILABLE (its gateway answers 503 with Retry-After and its
 * client retries, on another replica too), and a stream that ends gives its place back.
 */
import { describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../test/support/servers.js';
import { startRegistry } from './helpers.js';
import { watch } from './watch-harness.js';

const up = await postgresAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!up)('Watch streams at once', () => {
  it('beyond MAX_WATCHES: UNAVAILABLE before anything is sent; a closed stream frees its place', { timeout: 60_000 }, async () => {
    const db = await createTestDatabase();
    const registry = await startRegistry({ databaseUrl: db.url, maxWatches: 2, watchKeepAliveMs: 200 });
    try {
      const open = [watch(registry), watch(registry)];
      await Promise.all(open.map((w) => w.until((m) => m.length > 0)));
      const refused = watch(registry);
      const err = await refused.ended;
      expect(err?.code).toBe('UNAVAILABLE');
      expect(err?.message).toBe('this registry serves 2 Watch streams, the most it may: retry later');
      expect(refused.messages).toEqual([]);
      open[0]!.stop();
      await open[0]!.ended;
      // The registry learns of the cancel at its stream's next turn (a keep-alive at most): until then the place is taken.
      const deadline = Date.now() + 5000;
      let next = watch(registry);
      while ((await Promise.race([next.ended, sleep(300).then(() => 'open')])) !== 'open' && Date.now() < deadline) next = watch(registry);
      await next.until((m) => m.length > 0);
      next.stop();
      open[1]!.stop();
    } finally {
      await registry.close();
      await db.drop();
    }
  });
});
