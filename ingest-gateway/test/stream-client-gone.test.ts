/**
 * An SSE client that leaves while its stream is still being set up (waiting for one of the
 * gateway's catch-up slots, or for the first message of its catch-up stream) gives up its place:
 * its catch-up stream is cancelled, and one it had not opened yet is never opened. Otherwise a
 * resume storm whose clients leave keeps every slot taken for good, with a registry stream and a
 * chunk each, and later clients resuming from an old cursor wait forever.
 */
import { connect, type Socket } from 'node:net';
import { pollUntil } from '@dynamic-events/proto/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchMessage } from '../src/model.js';
import { API, startGateway, type TestGateway } from './helpers.js';

/** The gateway's catch-up streams at once (catch-up-slots.ts). */
const SLOTS = 8;

/** The registry: from now, a keep-alive; a catch-up stream sends nothing and ends only when cancelled. */
function stalledHistory(gw: TestGateway): AbortSignal[] {
  const catchUps: AbortSignal[] = [];
  gw.registry.watch = async function* (query, call) {
    if (query.afterCursor !== '') catchUps.push(call.signal);
    else yield { cursor: 'c100', changes: [] } satisfies WatchMessage;
    await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
  };
  return catchUps;
}

/** A raw SSE client resuming after an old cursor. */
function resumer(gw: TestGateway): Socket {
  const { port } = new URL(gw.url);
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  socket.on('error', () => {});
  socket.write(`GET ${API}/dynamic-events/stream HTTP/1.1\r\nhost: localhost\r\nlast-event-id: c1\r\n\r\n`);
  return socket;
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('an SSE client that leaves before its stream starts', () => {
  it('cancels its catch-up stream, and a client waiting for a slot never opens one', { timeout: 30_000 }, async () => {
    gateway = await startGateway();
    const catchUps = stalledHistory(gateway);
    const first = Array.from({ length: SLOTS }, () => resumer(gateway!));
    await pollUntil('every slot holds a catch-up stream', async () => catchUps.length === SLOTS, { timeoutMs: 10_000, intervalMs: 20 });
    const waiting = resumer(gateway);
    // Given time to reach the slots' queue.
    await new Promise((resolve) => setTimeout(resolve, 300));
    waiting.destroy();
    // Given time for the gateway to see it leave, before the slots free up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const socket of first) socket.destroy();
    await pollUntil('every catch-up stream is cancelled', async () => catchUps.every((signal) => signal.aborted), { timeoutMs: 10_000, intervalMs: 20 });
    // The slots freed went to nobody: the client that waited for one had left.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(catchUps).toHaveLength(SLOTS);
  });
});
