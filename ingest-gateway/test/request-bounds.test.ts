/**
 * What one client, or a burst of them, can make the gateway hold: bodies with too many JSON values
 * are refused before parsing, bodies in flight together share a budget (503 + Retry-After beyond it),
 * and a request that stalls is cut off by the request and header timeouts.
 */
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { LIMITS } from '@dynamic-events/proto';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../src/http/http-server.js';
import { API, startGateway, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

const KIB = 1024;
let gw: TestGateway | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await gw?.close();
  gw = undefined;
});

/** Opens a connection and sends the headers of a POST of `length` bytes plus `sent` bytes of body. */
function partialPost(url: string, length: number, sent: number): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST ${pathname} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${'{'.padEnd(sent, ' ')}`);
      resolve(socket);
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Everything a socket receives until it closes (or `ms` pass). */
function received(socket: Socket, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    setTimeout(() => resolve(text), ms);
  });
}

describe('JSON values per body', () => {
  it(`refuses more than ${LIMITS.jsonMaxValues} members and elements with 400, in a tolerated field too`, async () => {
    gw = await startGateway();
    const wide = Object.fromEntries(Array.from({ length: LIMITS.jsonMaxValues }, (_, i) => [`k${i}`, 0]));
    const res = await gw.post({ ...validBody(), extra: wide });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(refusal(`body holds too many JSON values (max ${LIMITS.jsonMaxValues} members and elements)`, { field: 'body' }));
    expect(gw.registry.recorded).toHaveLength(0);
  });

  it('accepts the largest valid event (256 properties, 64 images and 64 clips)', async () => {
    gw = await startGateway();
    const body = validBody() as { event: { event_data: Record<string, unknown> } };
    body.event.event_data.event_additional_properties = Object.fromEntries(Array.from({ length: LIMITS.propertiesMaxCount }, (_, i) => [`p${i}`, 'v']));
    body.event.event_data.images = Array.from({ length: LIMITS.urlsMaxCount }, (_, i) => `https://x.example/${i}.jpg`);
    body.event.event_data.video_clips = Array.from({ length: LIMITS.urlsMaxCount }, (_, i) => `https://x.example/${i}.mp4`);
    expect((await gw.post(body)).status).toBe(200);
  });
});

describe('in-flight body budget', () => {
  it('answers 503 with Retry-After while other bodies hold the budget, and lets requests through once they are done', async () => {
    gw = await startGateway({ maxBodyBytes: 256 * KIB, maxInflightBodyBytes: 300 * KIB });
    const url = `${gw.url}${API}/dynamic-events`;
    // A slow sender holds 200 KiB of budget while its body trickles in.
    const slow = await partialPost(url, 200 * KIB, 10);
    const big = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...validBody(), pad: 'x'.repeat(150 * KIB) }) });
    // Refused once the gateway has read the slow sender's headers (polled: a busy machine takes a while).
    let refused = await big();
    for (const deadline = Date.now() + 10_000; refused.status !== 503 && Date.now() < deadline; ) refused = await big();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ error: 'too many request bodies in flight; retry later' });
    // A small body still fits beside it.
    expect((await gw.post(validBody())).status).toBe(200);
    slow.destroy();
    // Let through once the slow body is gone (polled until the gateway has seen the close).
    await expect.poll(async () => (await big()).status, { timeout: 10_000 }).toBe(200);
  });

  it('always lets a lone body of the largest size through', async () => {
    gw = await startGateway({ maxBodyBytes: 256 * KIB, maxInflightBodyBytes: 256 * KIB });
    const res = await fetch(`${gw.url}${API}/dynamic-events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...validBody(), pad: 'x'.repeat(250 * KIB) }) });
    expect(res.status).toBe(200);
  });
});

describe('request timeouts', () => {
  async function serverWith(timeouts: { requestTimeoutMs: number; headersTimeoutMs: number }) {
    const server = createHttpServer((req, res) => req.resume().on('end', () => res.end('ok')), timeouts);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
  }

  it('cuts off a body that stalls after the request timeout with 408', async () => {
    const { server, url } = await serverWith({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    // Nothing but the request timeout answers 408 to a body that stalls; with Node's default check
    // interval (30 s) instead of the server's, no answer would come within the 10 s window.
    const text = await received(await partialPost(url, 1000, 10), 10_000);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    server.close();
  });

  it('cuts off headers that never end after the header timeout', async () => {
    // The request timeout is far beyond the 10 s window, so a 408 within it is the header timeout's.
    const { server, url } = await serverWith({ requestTimeoutMs: 60_000, headersTimeoutMs: 500 });
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => socket.write('POST / HTTP/1.1\r\nHost: x\r\n'));
    sockets.push(socket);
    const text = await received(socket, 10_000);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    server.close();
  });
});

describe('in-flight body budget and compressed bodies', () => {
  it('counts a compressed body at MAX_BODY_BYTES (it may inflate to that), not at its compressed length', async () => {
    const { gzipSync } = await import('node:zlib');
    gw = await startGateway({ maxBodyBytes: 256 * KIB, maxInflightBodyBytes: 300 * KIB });
    const url = `${gw.url}${API}/dynamic-events`;
    const slow = await partialPost(url, 200 * KIB, 10);
    const small = gzipSync(JSON.stringify(validBody()));
    const post = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: small });
    // Refused once the gateway has read the slow sender's headers (polled: a busy machine takes a while).
    await expect.poll(async () => (await post()).status, { timeout: 10_000 }).toBe(503);
    slow.destroy();
    await expect.poll(async () => (await post()).status, { timeout: 10_000 }).toBe(200);
  });
});
