/**
 * Hostile bytes at the HTTP edge: broken framing and aborts never put raw bytes, the token or body
 * values in a log line; invalid UTF-8 and lone surrogates are refused before anything is stored.
 */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { identityConflict } from '@dynamic-events/proto';
import { API, mutate, startGateway, TINY_PNG, validBody, type TestGateway } from './helpers.js';
import { refusal } from './refusal.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests break the body in arbitrary, untyped ways
type Body = Record<string, any>;

const TOKEN = 'tok-SECRET-7f3a9c';
const BODY_VALUE = 'BODY-VALUE-4c1d';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ token: TOKEN });
});
afterAll(() => gw.close());
afterEach(() => {
  gw.logs.length = 0;
  gw.registry.calls.length = 0;
  gw.media.calls.length = 0;
});

const auth = { Authorization: `Bearer ${TOKEN}` };
const port = () => Number(new URL(gw.url).port);

/** Writes raw bytes on a new connection; resolves with what came back once the server closes it (or `closeAfterMs`). */
function raw(payload: string | Buffer, closeAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(port(), '127.0.0.1', () => {
      socket.write(payload);
      if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
    });
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
}

const head = (extra: string) =>
  `POST ${API}/dynamic-events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n${extra}\r\n`;
const partialBody = `{"source":{"device_name":"${BODY_VALUE}"`;

/** Waits until the request's log line was written (it is written when the response closes). */
async function settled(): Promise<void> {
  for (const deadline = Date.now() + 10_000; !gw.logs.some((l) => l.msg === 'request' || l.msg === 'malformed HTTP request refused') && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 50));
}

function expectCleanLogs(): void {
  const text = JSON.stringify(gw.logs);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(BODY_VALUE);
  expect(text).not.toContain('rawPacket');
  expect(text).not.toContain('Bearer');
}

describe('logs on broken requests', () => {
  it('a chunked body with a framing error after the headers: answered 400 as JSON, and its one info line says 400', async () => {
    const body = partialBody;
    const answer = await raw(`${head('Transfer-Encoding: chunked\r\n')}${body.length.toString(16)}\r\n${body}\r\nZZ-not-a-chunk\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"error":"malformed HTTP request"}');
    await settled();
    expectCleanLogs();
    expect(gw.logs).toHaveLength(1);
    // The access line records what the client was answered, not that Koa's own response never went out.
    expect(gw.logs[0]).toMatchObject({ level: 'info', msg: 'request', status: 400 });
    expect(gw.registry.calls).toEqual([]);
  });

  it('a client that aborts mid-body: one short info line, no stack trace', async () => {
    await raw(`${head('Content-Length: 5000\r\n')}${partialBody}`, 100);
    await settled();
    expectCleanLogs();
    expect(gw.logs).toHaveLength(1);
    expect(gw.logs[0]).toMatchObject({ level: 'info', msg: 'request', status: 499 });
    expect(JSON.stringify(gw.logs[0]).length).toBeLessThan(400);
    expect(JSON.stringify(gw.logs)).not.toContain('stack');
  });

  it('garbage instead of a request line: a JSON 400 and one info line with the parser code only', async () => {
    const answer = await raw(`GARBAGE ${BODY_VALUE}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"error":"malformed HTTP request"}');
    await settled();
    expectCleanLogs();
    expect(gw.logs).toEqual([expect.objectContaining({ level: 'info', msg: 'malformed HTTP request refused', code: expect.stringMatching(/^HPE_/) })]);
  });

  it('oversized headers answer 431 as JSON', async () => {
    const answer = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('{"error":"request headers are too large"}');
  });

  it('a 500 whose cause quotes the body and carries raw bytes logs neither', async () => {
    const cause = Object.assign(new Error(`Unexpected token 'B', "{"device":"${BODY_VALUE}"..." is not valid JSON`), {
      rawPacket: Buffer.from(`Authorization: Bearer ${TOKEN}`),
      detail: `Key (device_name)=(${BODY_VALUE}) already exists.`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    gw.registry.failWith = cause;
    try {
      const response = await gw.post(validBody(), auth);
      expect(response.status).toBe(500);
    } finally {
      gw.registry.failWith = undefined;
    }
    await settled();
    expectCleanLogs();
    const failed = gw.logs.find((l) => l.msg === 'request failed');
    expect(failed?.err).toMatchObject({ type: 'Error', message: 'Unexpected token … is not valid JSON' });
  });
});

describe('text that is not Unicode', () => {
  const postRaw = (bytes: Buffer, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${API}/dynamic-events`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth, ...headers }, body: bytes }).then(
      async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }),
    );
  const withImage = (change: (body: Body) => void) =>
    mutate((b) => {
      b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
      change(b);
    });

  it.each([
    ['a 0xFF byte', Buffer.from([0xff])],
    ['a CESU-8 lone surrogate (ED A0 80)', Buffer.from([0xed, 0xa0, 0x80])],
    ['a truncated sequence', Buffer.from([0xe2, 0x82])],
    ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
  ])('refuses %s inside a string with 400 before decoding, storing nothing', async (_name, bad) => {
    const text = JSON.stringify(withImage((b) => (b.source.object_id = 'PLACEHOLDER')));
    const [before, after] = text.split('PLACEHOLDER') as [string, string];
    const response = await postRaw(Buffer.concat([Buffer.from(`${before}o`), bad, Buffer.from(after)]));
    expect(response).toEqual({ status: 400, json: refusal('body is not valid UTF-8', { field: 'body' }) });
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });

  it('checks the decompressed bytes of a gzip body', async () => {
    const bytes = Buffer.concat([Buffer.from('{"source":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const response = await postRaw(gzipSync(bytes), { 'Content-Encoding': 'gzip' });
    expect(response).toEqual({ status: 400, json: refusal('body is not valid UTF-8', { field: 'body' }) });
  });

  it.each([
    ['source.object_id', (b: Body) => (b.source.object_id = 'o\ud800')],
    ['source.device_name', (b: Body) => (b.source.device_name = '\udbff')],
    ['source.object_domain', (b: Body) => (b.source.object_domain = 'a.\udc00.b')],
    ['event.event_type.event_type', (b: Body) => (b.event.event_type.event_type = 'x\udfffy')],
    ['event.event_data.event_additional_properties.zone', (b: Body) => (b.event.event_data.event_additional_properties.zone = '\ud800')],
    ['event.event_data.images[0]', (b: Body) => (b.event.event_data.images[0] = 'https://x/\ud800')],
  ])('refuses a lone surrogate escape in %s with 400 naming it, and stores no image', async (field, change) => {
    // JSON.stringify writes lone surrogates as \\uXXXX escapes: valid UTF-8, invalid text.
    const body = JSON.stringify(withImage(change));
    expect(body).toMatch(/\\ud[89a-f][0-9a-f]{2}/);
    const response = await gw.post(body, auth);
    expect(response.status).toBe(400);
    expect(response.json.error).toBe(`${field} must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)`);
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });

  it('refuses a lone surrogate in a property key', async () => {
    const response = await gw.post('{"source":' + JSON.stringify(validBody().source) + ',"event":{"event_type":{"event_type":"t","display_name":"d","display_description":"d"},"event_data":{"event_additional_properties":{"\\udc00":"v"}}}}', auth);
    expect(response).toMatchObject({ status: 400, json: { error: 'event.event_data.event_additional_properties keys must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)' } });
  });

  it('accepts surrogate pairs (raw or escaped), U+FFFD itself and a leading byte-order mark', async () => {
    const body = JSON.stringify(mutate((b) => (b.source.object_id = 'o😀\ufffd'))).replace('😀', '\\ud83d\\ude00');
    expect((await gw.post(body, auth)).status).toBe(200);
    expect(gw.registry.recorded.at(-1)!.source.objectId).toBe('o😀\ufffd');
    const bom = await postRaw(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(validBody()))]));
    expect(bom.status).toBe(200);
  });
});

describe('identities in Unicode NFC', () => {
  const NFD = 'came\u0301ra';

  it.each([
    ['source.device_name', (b: Body) => (b.source.device_name = NFD)],
    ['source.object_id', (b: Body) => (b.source.object_id = NFD)],
    ['source.object_domain', (b: Body) => (b.source.object_domain = `acme.${NFD}`)],
    ['event.event_type.event_type', (b: Body) => (b.event.event_type.event_type = NFD)],
  ])('refuses a decomposed %s with 400 naming it (the registry\'s words), before storing an image', async (field, change) => {
    const body = mutate((b) => {
      b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
      change(b);
    });
    const response = await gw.post(body, auth);
    expect(response).toMatchObject({ status: 400, json: { error: `${field} must be Unicode NFC-normalized` } });
    expect(gw.media.calls).toEqual([]);
    expect(gw.registry.calls).toEqual([]);
  });

  it('accepts the composed form, and decomposed text outside the identity fields, as sent', async () => {
    const body = mutate((b) => {
      b.source.device_name = NFD.normalize('NFC');
      b.source.object_name = NFD;
      b.event.event_data.event_additional_properties.zone = NFD;
    });
    expect((await gw.post(body, auth)).status).toBe(200);
    const recorded = gw.registry.recorded.at(-1)!;
    expect(recorded.source).toMatchObject({ deviceName: 'caméra', objectName: NFD });
    expect(recorded.properties).toContainEqual({ key: 'zone', value: NFD });
  });
});

describe('one full id, one object', () => {
  it('refuses an image request whose full id names an object of another domain with 409, before storing the image', async () => {
    const first = mutate((b) => Object.assign(b.source, { object_domain: 'col.a.b', object_id: 'c' }));
    expect((await gw.post(first, auth)).status).toBe(200);
    gw.media.calls.length = 0;
    gw.registry.calls.length = 0;
    const second = mutate((b) => {
      Object.assign(b.source, { object_domain: 'col.a', object_id: 'b.c' });
      b.event.event_data.event_additional_properties.base64_image = TINY_PNG.toString('base64');
    });
    const response = await gw.post(second, auth);
    expect(response.status).toBe(409);
    expect(response.json.error).toBe(
      'object "col.a.b.c" already exists with object_domain "col.a.b" and object_id "c": source.object_domain "col.a" with source.object_id "b.c" would give another object the same identity',
    );
    expect(gw.media.calls).toEqual([]);
    // The gateway knew the owner from the first event (no lookup needed); nothing recorded.
    expect(gw.registry.calls).not.toContain('recordEvent');
  });

  it("answers the registry's ALREADY_EXISTS with 409 and its message", async () => {
    // What the real registry answers when the full id already names an object with another split.
    const conflict = identityConflict({ objectDomain: 'acme.camera.motion.channel', objectId: '1' }, { objectDomain: 'acme.camera.motion', objectId: 'channel.1' });
    gw.registry.failWith = conflict;
    try {
      expect(await gw.post(validBody(), auth)).toMatchObject({ status: 409, json: { error: conflict?.message } });
    } finally {
      gw.registry.failWith = undefined;
    }
  });
});
