/** POST dynamic-events: the body's size limit, Content-Type and Content-Encoding. */
import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API, mutate, startGateway, validBody, type TestGateway } from './helpers.js';
import { HTTP_TEST_OPTIONS, resetFakes } from './http-setup.js';
import { refusal } from './refusal.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway(HTTP_TEST_OPTIONS);
});
afterAll(() => gw.close());
afterEach(() => resetFakes(gw));

describe('POST dynamic-events', () => {
  it('answers 413 for a body over MAX_BODY_BYTES without calling anything', async () => {
    const body = mutate((b) => (b.event.event_data.event_additional_properties.note = 'x'.repeat(70 * 1024)));
    const response = await gw.post(body);
    expect(response).toMatchObject({ status: 413, json: { error: `body exceeds ${64 * 1024} bytes` } });
    expect(gw.registry.calls).toEqual([]);
    // A chunked body without Content-Length is cut at the limit too.
    const chunked = await rawRequest('POST', `${API}/dynamic-events`, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, JSON.stringify(body));
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual(refusal(`body exceeds ${64 * 1024} bytes`, { field: 'body', rule: 'max-body-bytes' }));
  });

  it.each([
    ['text/plain', 'Content-Type must be application/json'],
    ['application/x-www-form-urlencoded', 'Content-Type must be application/json'],
    ['application/json-patch+json', 'Content-Type must be application/json'],
    ['application/jsonx', 'Content-Type must be application/json'],
    ['multipart/form-data; boundary=x', 'Content-Type must be application/json'],
    ['application/json; charset=latin1', 'Content-Type charset must be utf-8'],
  ])('answers 415 for Content-Type %s', async (type, message) => {
    const response = await gw.post(validBody(), { 'Content-Type': type });
    expect(response).toMatchObject({ status: 415, json: { error: message } });
    expect(gw.registry.calls).toEqual([]);
  });

  it('reads compressed bodies, limits their decompressed size and rejects bad encodings', async () => {
    const headers = (encoding: string) => ({ 'Content-Type': 'application/json', 'Content-Encoding': encoding });
    const path = `${API}/dynamic-events`;
    const ok = await rawRequest('POST', path, headers('gzip'), gzipSync(JSON.stringify(validBody())));
    expect(ok.status).toBe(200);
    const bomb = await rawRequest('POST', path, headers('gzip'), gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20)));
    expect(bomb).toMatchObject({ status: 413, body: JSON.stringify({ error: `body exceeds ${64 * 1024} bytes`, field: 'body', rule: 'max-body-bytes' }) });
    const corrupt = await rawRequest('POST', path, headers('br'), Buffer.from('definitely not brotli'));
    expect({ status: corrupt.status, body: JSON.parse(corrupt.body) as unknown }).toEqual({ status: 400, body: refusal('body is not valid br data', { field: 'body', rule: 'content-encoding' }) });
    const unknown = await rawRequest('POST', path, headers('compress'), Buffer.from('{}'));
    expect({ status: unknown.status, body: JSON.parse(unknown.body) as unknown }).toEqual({
      status: 415,
      body: refusal('Content-Encoding "compress" is not supported (use one of gzip, deflate, br or none)', { field: 'Content-Encoding' }),
    });
    expect(gw.registry.calls).toEqual(['recordEvent']);
  });

});

// Content codings are case-insensitive and Content-Encoding is a list (RFC 9110 §8.4, §8.4.1):
// the fast path (exact path) and the Koa route (trailing slash) read the same codings alike.
describe('POST dynamic-events Content-Encoding', () => {
  const compressed: Record<string, (text: string) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync, identity: Buffer.from };
  it.each([
    ['GZIP', 'gzip'],
    ['Gzip', 'gzip'],
    [' gzip ', 'gzip'],
    ['x-gzip', 'gzip'],
    ['X-GZIP', 'gzip'],
    ['Deflate', 'deflate'],
    ['BR', 'br'],
    ['IDENTITY', 'identity'],
    ['gzip, identity', 'gzip'],
    ['Identity,GZIP', 'gzip'],
    ['gzip,', 'gzip'],
  ])('reads a body with Content-Encoding "%s" on both paths', async (encoding, coding) => {
    const body = compressed[coding]!(JSON.stringify(validBody()));
    for (const path of [`${API}/dynamic-events`, `${API}/dynamic-events/`]) {
      const answer = await rawRequest('POST', path, { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    }
    expect(gw.registry.calls).toEqual(['recordEvent', 'recordEvent']);
  });

  it.each([
    ['gzip, br', 'Content-Encoding "gzip, br" is not supported (use one of gzip, deflate, br or none)'],
    ['GZIP, GZIP', 'Content-Encoding "GZIP, GZIP" is not supported (use one of gzip, deflate, br or none)'],
    ['Compress', 'Content-Encoding "Compress" is not supported (use one of gzip, deflate, br or none)'],
    // Names an object literal would inherit are not codings.
    ['constructor', 'Content-Encoding "constructor" is not supported (use one of gzip, deflate, br or none)'],
    ['__proto__', 'Content-Encoding "__proto__" is not supported (use one of gzip, deflate, br or none)'],
    ['zstd' + 'z'.repeat(200), 'Content-Encoding is not supported (use one of gzip, deflate, br or none)'],
  ])('answers 415 for Content-Encoding "%s" on both paths', async (encoding, message) => {
    for (const path of [`${API}/dynamic-events`, `${API}/dynamic-events/`]) {
      const answer = await rawRequest('POST', path, { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, gzipSync('{}'));
      expect({ path, status: answer.status, body: JSON.parse(answer.body) as unknown }).toEqual({ path, status: 415, body: refusal(message, { field: 'Content-Encoding' }) });
    }
    expect(gw.registry.calls).toEqual([]);
  });
});

describe('POST dynamic-events Content-Type', () => {
  it('answers 415 when Content-Type is missing', async () => {
    const response = await rawRequest('POST', `${API}/dynamic-events`, {}, JSON.stringify(validBody()));
    expect(response.status).toBe(415);
    expect(JSON.parse(response.body)).toEqual(refusal('Content-Type must be application/json', { field: 'Content-Type', rule: 'content-type' }));
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON; charset="utf-8"', 'application/json; foo=bar'])(
    'accepts Content-Type %s',
    async (type) => {
      expect((await gw.post(validBody(), { 'Content-Type': type })).status).toBe(200);
    },
  );
});

/** A request with exact headers (fetch always adds a Content-Type for string bodies). */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gw.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
