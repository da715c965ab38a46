/**
 * No log line holds a token, a body value or raw request bytes, whatever the error path: a chunked
 * body with a framing error, a client that aborts mid-body, a large broken request. Aborts are the
 * client's doing: no error line, no stack trace.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API, startGateway, type TestGateway } from './helpers.js';

const TOKEN = 'tok-TOPSECRET-7f3a9c';
const SECRET = 'SECRET-BODY-VALUE-91b2';
let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** Sends raw bytes, then (optionally) cuts the connection; resolves once the server closed it or `ms` passed. */
function sendRaw(url: string, bytes: string, abortAfterMs?: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    if (abortAfterMs !== undefined) setTimeout(() => socket.destroy(), abortAfterMs);
    setTimeout(() => socket.destroy(), 2000);
  });
}

const head = (extra: string) =>
  `POST ${API}/dynamic-events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n${extra}\r\n`;
const body = `{"source":{"device_name":"${SECRET}","object_id":"${SECRET}"`;

/** Lets the server log what it logs about a request that just ended. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

function expectClean(gateway: TestGateway): void {
  for (const line of gateway.rawLogs) {
    expect(line).not.toContain(TOKEN);
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain('rawPacket');
    expect(line.length).toBeLessThan(2048);
  }
  expect(gateway.logs.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
  expect(gateway.rawLogs.join('\n')).not.toMatch(/\bat \S+ \(/); // no stack frames
}

describe('log lines on broken requests', () => {
  it('a chunked body with a framing error after the headers', async () => {
    gw = await startGateway({ token: TOKEN });
    const answer = await sendRaw(gw.url, `${head('Transfer-Encoding: chunked\r\n')}${body.length.toString(16)}\r\n${body}\r\nZZZ\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    await settle();
    expectClean(gw);
    expect(gw.logs.filter((l) => l.msg === 'request')).toEqual([expect.objectContaining({ level: 'info', status: 400 })]);
  });

  it('a client that aborts mid-body: one short access line, nothing at error level', async () => {
    gw = await startGateway({ token: TOKEN });
    await sendRaw(gw.url, `${head('Content-Length: 5000\r\n')}${body}`, 100);
    await settle();
    expectClean(gw);
    const access = gw.logs.filter((l) => l.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ level: 'info', status: 499 });
  });

  it('a 60 KB request with a framing error writes no line above 2 KB', async () => {
    gw = await startGateway({ token: TOKEN });
    const big = `{"source":{"device_name":"${SECRET}${'x'.repeat(60_000)}"`;
    await sendRaw(gw.url, `${head('Transfer-Encoding: chunked\r\n')}${big.length.toString(16)}\r\n${big}\r\n!!\r\n`);
    await settle();
    expectClean(gw);
  });
});
