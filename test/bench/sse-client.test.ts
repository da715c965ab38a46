/**
 * The bench's SSE consumer (sse-client.js) undoes chunked framing and splits frames itself, on a
 * read buffer it reuses: a frame it loses or splits would show up as a missing (probe, watcher)
 * pair, or not at all. A raw server sends the answer in slices cut at every kind of boundary, each
 * in its own read.
 */
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: bench code is plain JavaScript
import { openSseClient } from './sse-client.js';

const frames = Array.from({ length: 40 }, (_, i) => `id: c${i}\nevent: event.created\ndata: {"id":"e${i}","x":"${'y'.repeat(i * 7)}"}\n\n`);
const chunked = (parts: string[]) => parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('');

const sockets: Socket[] = [];
afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));

/** A server that answers with `head` then `body`, written in slices of `sizes` bytes (cycled), one per turn of its event loop. */
async function serve(head: string, body: string, sizes: number[]) {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.setNoDelay(true);
    socket.once('data', async () => {
      const bytes = Buffer.from(head + body);
      for (let at = 0, n = 0; at < bytes.length; n++) {
        const size = sizes[n % sizes.length]!;
        socket.write(bytes.subarray(at, at + size));
        at += size;
        await new Promise((r) => setImmediate(r));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/stream?x=1`, close: () => server.close() };
}

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';

async function read(body: string, sizes: number[]) {
  const server = await serve(HEAD, body, sizes);
  let text = '';
  const runs: string[] = [];
  const client = await openSseClient(server.url, {}, (buf: Buffer) => {
    runs.push(buf.toString());
    text += buf.toString();
  });
  for (const deadline = Date.now() + 20_000; !text.includes('id: c39\n') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
  await client.close();
  server.close();
  return { text, runs };
}

describe('bench SSE client', () => {
  // Chunks of one and of five frames, a chunk that ends inside a frame, and frames whose final "\n"
  // comes in the next chunk (the gateway writes whole frames; reads need not see them so).
  const ordered = [frames[0]!, frames.slice(1, 6).join(''), frames.slice(6, 9).join('') + frames[9]!.slice(0, 11), frames[9]!.slice(11)];
  for (let i = 10; i < 40; i++) ordered.push(frames[i]!.slice(0, -1), '\n');
  const body = chunked(ordered);

  for (const sizes of [[1], [2, 3], [7], [64, 1, 13], [100_000]]) {
    it(`hands over every frame whole and in order, reads cut every ${sizes.join('/')} bytes`, async () => {
      const { text, runs } = await read(body, sizes);
      expect(text).toBe(frames.join(''));
      // Each run holds whole frames only.
      for (const run of runs) expect(run).toMatch(/^(id: c\d+\nevent: event\.created\ndata: \{[^\n]*\}\n\n)+$/);
    });
  }

  it('refuses an answer that is not 200, not chunked, or never comes', async () => {
    const notFound = await serve('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', '', [1000]);
    await expect(openSseClient(notFound.url, {}, () => {})).rejects.toThrow(/404/);
    notFound.close();
    const sized = await serve('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n', 'id: c1\n\n\n\n', [1000]);
    await expect(openSseClient(sized.url, {}, () => {})).rejects.toThrow(/chunked: false/);
    sized.close();
    const closed = await serve('HTTP/1.1 200 OK\r\n', '', [1000]);
    setTimeout(() => sockets.forEach((s) => s.end()), 50);
    await expect(openSseClient(closed.url, {}, () => {})).rejects.toThrow(/closed before its answer/);
    closed.close();
  });
});
