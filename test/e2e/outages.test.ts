/**
 * Outages answered as outages, end to end: the database is cut off (a proxy drops every connection
 * and refuses new ones, as a crashed or unreachable Postgres looks) and brought back. Requests get
 * 503 with Retry-After and a body without internal text, never 500; /readyz follows within 2 s both
 * ways; and once the database is back, nothing fails later than 2 s after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { createTestDatabase, postgresAvailable, tempDir } from '../support/servers.js';
import { postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

afterAll(stopAllStacks);

const up = await postgresAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds until /readyz answers `status`; fails after 5 s. */
async function readyzTurns(stack: Stack, status: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    const res = await fetch(`${stack.baseUrl}/readyz`).catch(() => undefined);
    if (res?.status === status) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`/readyz did not answer ${status} within 5 s`);
}

describe.skipIf(!up)('database outage', () => {
  let stack: Stack;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dir: ReturnType<typeof tempDir>;
  let proxy: TcpProxy;

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(db.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.port = String(proxy.port);
    dir = tempDir('e2e-outage');
    stack = await startStack({ dataDir: dir.path, env: { DATABASE_URL: target.toString() } });
  });

  afterAll(async () => {
    await proxy?.start().catch(() => {});
    const result = await stack?.stop('SIGTERM');
    await proxy?.stop();
    await db?.drop();
    dir?.remove();
    expect(result?.code).toBe(0);
  });

  it('answers 503 with Retry-After while the database is gone, and recovers within 2 s of its return', async () => {
    const first = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'outage-before' }));
    expect(first.status).toBe(200);

    await proxy.stop();
    expect(await readyzTurns(stack, 503)).toBeLessThanOrEqual(2000);
    const write = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'outage-during' }));
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(write.body).toEqual({ error: 'the event store is unavailable; retry later' });
    const read = await fetch(`${stack.api}/dynamic-events/${String(first.body!.id)}`);
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toMatch(/^\d+$/);
    const text = await read.text();
    expect(text).not.toMatch(/ECONN|127\.0\.0\.1|postgres|terminated/i);

    await proxy.start();
    const back = Date.now();
    expect(await readyzTurns(stack, 200)).toBeLessThanOrEqual(2000);
    await sleep(Math.max(0, back + 2000 - Date.now()));
    // From 2 s after its return on, every request succeeds: no broken pooled connection is handed out.
    const after = await Promise.all(Array.from({ length: 40 }, (_, i) => postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: `outage-after-${i % 4}` }))));
    expect(after.map((r) => r.status)).toEqual(after.map(() => 200));
    const again = await fetch(`${stack.api}/dynamic-events/${String(first.body!.id)}`);
    expect(again.status).toBe(200);
  });
});
