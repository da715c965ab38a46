/**
 * Strict UTF-8 decoding of gRPC requests: a string field whose bytes are not UTF-8 (nested messages
 * included) marks the request so the server answers INVALID_ARGUMENT before any handler runs,
 * instead of the U+FFFD the generated decoders would make of it.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceDefinition } from '@grpc/grpc-js';
// The generated code directly: the package index loads strict-utf8 too (through grpc-server), at import.
import * as registry from '../src/contract/registry-contract.js';

/**
 * The module is loaded, and the service wrapped, inside each test: a fault at module load (the strict
 * decoder's construction) or in withStrictUtf8 then fails the tests, not only the file's import.
 */
const load = () => import('../src/contract/strict-utf8.js');
const definition = registry.RegistryServiceService as unknown as ServiceDefinition;
async function decoder(): Promise<(bytes: Buffer) => registry.RecordEventRequest> {
  const { withStrictUtf8 } = await load();
  const strict = withStrictUtf8(definition);
  return (bytes) => strict.recordEvent!.requestDeserialize(bytes) as registry.RecordEventRequest;
}

const MARKER = 'MARKER';
function requestWithDeviceName(deviceName: string): Buffer {
  const event = {
    source: { deviceName, objectId: 'o', objectDomain: 'd', objectName: 'n', objectType: 't' },
    eventType: { eventType: 'e', displayName: 'E', displayDescription: 'D' },
    additionalProperties: [],
    images: [],
    videoClips: [],
    idempotencyKey: '',
    requestHash: '',
    tokenId: '',
    occurredAt: undefined,
  };
  return Buffer.from(registry.RecordEventRequest.encode({ event }).finish());
}

/** A request whose device_name (inside two nested messages) holds `bad` bytes in place of the marker. */
function withBadBytes(bad: number[]): Buffer {
  const bytes = requestWithDeviceName(MARKER);
  Buffer.from(bad.concat(Array(MARKER.length - bad.length).fill(0x41))).copy(bytes, bytes.indexOf(MARKER));
  return bytes;
}

const refusal = { code: 'INVALID_ARGUMENT', message: 'request holds a string that is not valid UTF-8', details: { field: 'request', rule: 'encoding' } };

describe('withStrictUtf8', () => {
  it('keeps every method and its other properties, replacing only request decoding', async () => {
    const strict = (await load()).withStrictUtf8(definition);
    expect(Object.keys(strict)).toEqual(Object.keys(definition));
    for (const [name, method] of Object.entries(strict)) {
      const original = definition[name]!;
      expect(method).toMatchObject({ path: original.path, requestStream: original.requestStream, responseStream: original.responseStream });
      expect(method.requestSerialize).toBe(original.requestSerialize);
      expect(method.responseDeserialize).toBe(original.responseDeserialize);
      expect(method.requestDeserialize).not.toBe(original.requestDeserialize);
    }
  });

  it('decodes valid requests exactly as the generated decoder does, a leading BOM and U+FFFD kept', async () => {
    const [decode, { assertUtf8Request }] = [await decoder(), await load()];
    for (const name of ['cam-01', 'caméra 😀', '\ufeffbom', '\ufffd']) {
      const bytes = requestWithDeviceName(name);
      const request = decode(bytes);
      expect(request).toEqual(registry.RecordEventRequest.decode(bytes));
      expect(request.event?.source?.deviceName).toBe(name);
      expect(() => assertUtf8Request(request)).not.toThrow();
    }
  });

  it.each([
    ['0xFF', [0xff]],
    ['a CESU-8 lone surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a truncated sequence', [0xe2, 0x82]],
  ])('marks a request with %s in a nested string field, which assertUtf8Request refuses', async (_name, bad) => {
    const [decode, { assertUtf8Request }] = [await decoder(), await load()];
    const request = decode(withBadBytes(bad));
    // Still decoded (leniently) so the call can be answered; the mark is not an enumerable field.
    expect(request.event?.source?.deviceName).toContain('\ufffd');
    expect(Object.keys(request)).toEqual(Object.keys(registry.RecordEventRequest.decode(withBadBytes(bad))));
    expect(() => assertUtf8Request(request)).toThrow(expect.objectContaining(refusal));
  });

  it.each([
    ['a message cut inside a field', () => requestWithDeviceName('cam').subarray(0, 10)],
    ['an unknown wire type', () => Buffer.from([0x0e, 0x01])],
    ['a length past the end', () => Buffer.from([0x0a, 0xff, 0xff, 0x03, 0x01])],
    ['invalid UTF-8 and then a cut', () => withBadBytes([0xff]).subarray(0, -3)],
  ])('stands in for bytes that are no protobuf message (%s), which assertUtf8Request refuses', async (_name, bytes) => {
    const [decode, { assertUtf8Request }] = [await decoder(), await load()];
    expect(() => registry.RecordEventRequest.decode(bytes())).toThrow();
    const request = decode(bytes());
    // An empty stand-in: no field of it reaches anything, and the mark is not enumerable.
    expect(Object.keys(request)).toEqual([]);
    const notProtobuf = { ...refusal, message: 'request is not a valid protobuf message' };
    expect(() => assertUtf8Request(request)).toThrow(expect.objectContaining(notProtobuf));
  });
});

describe('assertUtf8Request', () => {
  it('accepts anything withStrictUtf8 did not mark', async () => {
    const { assertUtf8Request } = await load();
    for (const value of [undefined, null, 'text', 7, {}, { request: 'holds a string that is not valid UTF-8' }]) {
      expect(() => assertUtf8Request(value)).not.toThrow();
    }
  });
});
