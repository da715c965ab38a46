/**
 * What SSE responses hold for clients that stop reading is bounded in bytes for the whole gateway
 * (sse-room.ts): once it is reached, a client that holds nothing back is not given a chunk the
 * bound has no room for; its response ends after its last complete frame, and it resumes with
 * Last-Event-ID without a gap. The budget's own count says what the gateway holds.
 */
import { connect, type Socket } from 'node:net';
import { createStreamBudget, pollUntil } from '@dynamic-events/proto/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchChange, WatchMessage } from '../src/model.js';
import { API, CREATED_AT, startGateway, type TestGateway } from './helpers.js';

const EVENTS = 48;
/** About 512 KiB per event: 48 of them are more than the loopback socket buffers of a client that reads nothing. */
const change = (i: number): WatchChange => ({
  cursor: `c${i}`,
  kind: 'event.created',
  event: {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, domain: 'acme.camera', eventType: 'motion', rels: [], images: [], videoClips: [],
    properties: Array.from({ length: 32 }, (_, p) => ({ key: `p${p}`, value: `${i}-${p}-`.padEnd(16_000, 'z') })),
    createdAt: CREATED_AT, updatedAt: CREATED_AT, tokenId: null, occurredAt: null,
  },
});

/** The registry: from now, nothing; after `cN`, the events after it, one per message. */
function historyOf(gw: TestGateway): void {
  gw.registry.watch = async function* (query, call) {
    yield { cursor: query.afterCursor || 'c0', changes: [] } satisfies WatchMessage;
    const from = query.afterCursor === '' ? EVENTS + 1 : Number(query.afterCursor.slice(1)) + 1;
    for (let i = from; i <= EVENTS && !call.signal.aborted; i++) yield { cursor: `c${i}`, changes: [change(i)] };
    await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
  };
}

/** A raw HTTP client of the stream after `cursor`: `reading` false never reads; `body()` is what it read. */
function client(gw: TestGateway, cursor: string, reading: boolean): { socket: Socket; body(): string; closed: Promise<void> } {
  const { port } = new URL(gw.url);
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  let text = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(`GET ${API}/dynamic-events/stream HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\nlast-event-id: ${cursor}\r\n\r\n`);
  if (reading) socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  else socket.pause();
  return { socket, body: () => text, closed };
}

const ids = (body: string): number[] => [...body.matchAll(/^id: c(\d+)$/gm)].map((m) => Number(m[1]));

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('SSE bytes held for clients that read nothing', () => {
  it('ends a client when the gateway holds its bound, after a complete frame; it resumes from its last id without a gap', { timeout: 60_000 }, async () => {
    const MiB = 1024 * 1024;
    const budget = createStreamBudget({ streamBytes: 4 * MiB, totalBytes: 2 * MiB });
    gateway = await startGateway({ sseBudget: budget });
    historyOf(gateway);
    // Readers that stopped fill their sockets, then the gateway holds what it cannot send (about two chunks each).
    const stuck = [client(gateway, 'c0', false), client(gateway, 'c0', false), client(gateway, 'c0', false)];
    await pollUntil('the gateway holds the stuck clients\' bytes', async () => budget.held >= 1.9 * MiB, { timeoutMs: 20_000, intervalMs: 50 });
    const late = client(gateway, 'c0', true);
    await late.closed;
    // Its response ended before it got all events, after whole frames only.
    const first = ids(late.body());
    expect(first.length).toBeLessThan(EVENTS);
    expect(late.body()).toMatch(/\n\n\r\n0\r\n\r\n$/);
    expect(budget.held).toBeLessThanOrEqual(4 * MiB + MiB);
    for (const { socket } of stuck) socket.destroy();
    await Promise.all(stuck.map((c) => c.closed));
    await pollUntil('the stuck clients\' bytes are released', async () => budget.held === 0, { timeoutMs: 10_000, intervalMs: 50 });
    const resumed = client(gateway, first.length === 0 ? 'c0' : `c${first.at(-1)}`, true);
    await pollUntil('the resumed client has every event', async () => ids(resumed.body()).at(-1) === EVENTS, { timeoutMs: 20_000, intervalMs: 50 });
    expect([...first, ...ids(resumed.body())]).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
    resumed.socket.destroy();
  });
});
