/**
 * Hostile input over HTTP through all three services (embedded stack, token set): logs hold
 * no token, body value or raw bytes; one full id names one object (409); invalid UTF-8 and lone
 * surrogates are 400 and store no image; identities not in NFC are 400 and store nothing; every rel
 * resolves to its object.
 */
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { largePng } from '../support/images.js';
import { tempDir } from '../support/servers.js';
import { getJson, postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';

afterAll(stopAllStacks);

const TOKEN = 'e2e-token-Zq81vX';
const BODY_VALUE = 'e2e-body-value-K7p2';
const auth = { Authorization: `Bearer ${TOKEN}` };

let stack: Stack;
let dir: ReturnType<typeof tempDir>;
let url: string;

beforeAll(async () => {
  dir = tempDir('e2e-hostile');
  stack = await startStack({ dataDir: dir.path, env: { DYNAMIC_EVENTS_TOKEN: TOKEN } });
  url = `${stack.api}/dynamic-events`;
});

afterAll(async () => {
  const { code } = await stack.stop('SIGTERM');
  dir.remove();
  expect(code).toBe(0);
});

/** Files media stored so far (images land under DATA_DIR/media). */
function storedImages(): number {
  const media = join(dir.path, 'media');
  return existsSync(media) ? readdirSync(media, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0;
}

/** A unique PNG (random pixels) as base64_image, so a stored copy would be a new file. */
function withImage(body: ReturnType<typeof exampleEvent>) {
  const props = body.event.event_data.event_additional_properties as Record<string, string>;
  props.base64_image = largePng(2000).bytes.toString('base64');
  return body;
}

function rawRequest(payload: string, closeAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(stack.port, '127.0.0.1', () => {
      socket.write(payload);
      if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
    });
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
}

describe('logs (defect 2)', () => {
  it('a chunked framing error and an abort mid-body leave no token, body value or raw bytes in any log, and no error line', async () => {
    const before = stack.output().length;
    const started = new Date().toISOString();
    const head = `POST /api/platform/dh/dynamic-events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n`;
    const body = `{"source":{"device_name":"${BODY_VALUE}"`;
    await rawRequest(`${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\nnot-a-chunk\r\n`);
    await rawRequest(`${head}Content-Length: 9000\r\n\r\n${body}`, 150);
    await rawRequest(`BROKEN ${BODY_VALUE}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 300));
    const logged = stack.output().slice(before);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(BODY_VALUE);
    expect(logged).not.toContain('rawPacket');
    const lines = logged.split('\n').filter((l) => l.startsWith('{') && (JSON.parse(l) as { time: string }).time >= started);
    expect(lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
    // One short gateway info line each: the two requests (400: the broken chunk was answered; 499: the
    // abort) and the refused garbage; nothing else from the gateway since. (The launcher's own
    // "all services started" line may land after the test began: it is not about these requests.)
    const gateway = lines.filter((l) => (JSON.parse(l) as { service?: string }).service === 'ingest-gateway');
    expect(gateway.map((l) => (JSON.parse(l) as { status?: number }).status)).toEqual([400, 499, undefined]);
    expect(gateway).toHaveLength(3);
    for (const line of gateway) expect(line.length).toBeLessThan(400);
  });
});

describe('one full id, one object (defect 3)', () => {
  it('refuses ("col.a", "b.c") once ("col.a.b", "c") exists: 409 naming it, no image, device, event type or event stored', async () => {
    const first = exampleEvent({ device: 'dev-first', domain: 'col.a.b', objectId: 'c', eventType: 'first_type' });
    expect((await postJson(url, first, auth)).status).toBe(200);
    const images = storedImages();

    const second = withImage(exampleEvent({ device: 'dev-second', domain: 'col.a', objectId: 'b.c', eventType: 'second_type' }));
    const refused = await postJson(url, second, auth);
    expect(refused.status).toBe(409);
    expect(refused.body?.error).toBe(
      'object "col.a.b.c" already exists with object_domain "col.a.b" and object_id "c": source.object_domain "col.a" with source.object_id "b.c" would give another object the same identity',
    );
    const withoutImage = await postJson(url, exampleEvent({ device: 'dev-second', domain: 'col.a', objectId: 'b.c', eventType: 'second_type' }), auth);
    expect(withoutImage.status).toBe(409);

    expect(storedImages()).toBe(images);
    expect((await getJson(`${stack.api}/devices/dev-second`, auth)).status).toBe(404);
    expect((await getJson(`${stack.api}/event-types/col.a/second_type`, auth)).status).toBe(404);
    const object = await getJson(`${stack.api}/objects/col.a.b.c`, auth);
    expect(object.body).toMatchObject({ object_domain: 'col.a.b', object_id: 'c', device_name: 'dev-first' });
  });
});

describe('text that is not Unicode (defect 4)', () => {
  const postBytes = async (bytes: Buffer) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: bytes });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses invalid UTF-8 in the body with 400 and stores no image', async () => {
    const images = storedImages();
    const text = JSON.stringify(withImage(exampleEvent({ objectId: 'PLACEHOLDER' })));
    const [before, after] = text.split('PLACEHOLDER') as [string, string];
    for (const bad of [[0xff], [0xed, 0xa0, 0x80]]) {
      const res = await postBytes(Buffer.concat([Buffer.from(`${before}o`), Buffer.from(bad), Buffer.from(after)]));
      expect(res).toEqual({ status: 400, body: { error: 'body is not valid UTF-8', field: 'body', rule: 'encoding' } });
    }
    expect(storedImages()).toBe(images);
  });

  it('refuses lone surrogate escapes with 400 and stores no image; o\\ufffd stays its own object', async () => {
    const images = storedImages();
    for (const id of ['o\ud800', 'o\udbff']) {
      const res = await postJson(url, JSON.stringify(withImage(exampleEvent({ objectId: id, domain: 'surrogates' }))), auth);
      expect(res.status).toBe(400);
      expect(res.body?.error).toBe('source.object_id must not contain lone surrogates (U+D800 to U+DFFF alone are not characters)');
    }
    expect(storedImages()).toBe(images);
    const replacement = await postJson(url, exampleEvent({ objectId: 'o\ufffd', domain: 'surrogates' }), auth);
    expect(replacement.status).toBe(200);
    expect(replacement.body?.rels).toEqual([`/objects/${encodeURIComponent('surrogates.o\ufffd')}`]);
  });
});

describe('identities are NFC (item 7)', () => {
  it('refuses "caméra" decomposed (NFD) with 400 naming the field and stores nothing; composed it is recorded', async () => {
    const images = storedImages();
    const nfd = 'came\u0301ra';
    const refused = await postJson(url, withImage(exampleEvent({ device: nfd, domain: 'nfc', objectId: 'lens' })), auth);
    expect(refused).toMatchObject({ status: 400, body: { error: 'source.device_name must be Unicode NFC-normalized' } });
    expect(storedImages()).toBe(images);
    for (const name of [nfd, nfd.normalize('NFC')]) expect((await getJson(`${stack.api}/devices/${encodeURIComponent(name)}`, auth)).status).toBe(404);
    expect((await getJson(`${stack.api}/objects/nfc.lens`, auth)).status).toBe(404);

    const composed = await postJson(url, exampleEvent({ device: nfd.normalize('NFC'), domain: 'nfc', objectId: 'lens' }), auth);
    expect(composed.status).toBe(200);
    expect((await getJson(`${stack.api}/devices/${encodeURIComponent('caméra')}`, auth)).status).toBe(200);
  });
});

describe('rels resolve (defect 6)', () => {
  it.each(['x?y#z', 'a/b', '100%', 'sp ace', '..', 'ü+&=;'])('object_id %j: following the rel reads that object', async (objectId) => {
    const res = await postJson(url, exampleEvent({ domain: 'mm', objectId, device: 'rel-device' }), auth);
    expect(res.status).toBe(200);
    const rels = res.body?.rels as string[];
    expect(rels).toHaveLength(1);
    for (const rel of rels) {
      expect(rel).not.toMatch(/[?# ]/);
      const object = await getJson(`${stack.api}${rel}`, auth);
      expect(object.status).toBe(200);
      expect(object.body).toMatchObject({ id: `mm.${objectId}`, object_domain: 'mm', object_id: objectId });
    }
  });
});
