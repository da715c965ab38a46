import type { ServiceDefinition } from '@grpc/grpc-js';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { invalidArgument } from './app-error.js';

/** Set on a decoded request whose string fields held bytes that are not UTF-8. */
const INVALID_UTF8 = Symbol('invalid-utf8');
/** Set on the stand-in for a request whose bytes are not a protobuf message at all. */
const UNDECODABLE = Symbol('undecodable');

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const strictUtf8 = (bytes: Uint8Array): string => strictDecoder.decode(bytes);

/**
 * The same service with request decoding that refuses invalid UTF-8 in string fields. The
 * generated decoders would turn each bad sequence into U+FFFD, so two different byte strings (or
 * an encoded lone surrogate) would become one identity. The strict decoder is the same native
 * decoder in fatal mode: no extra pass. A request that fails it is decoded leniently and marked,
 * and assertUtf8Request answers it INVALID_ARGUMENT before any handler runs.
 *
 * Bytes that are no protobuf message (an unknown wire type, a length past the end) become a marked
 * empty stand-in the same way: grpc-js would otherwise answer a throwing decoder with INTERNAL
 * ("Error deserializing request"), an alert about our code for what is the caller's fault.
 */
export function withStrictUtf8(definition: ServiceDefinition): ServiceDefinition {
  const strict = Object.entries(definition).map(([name, method]) => {
    const lenient = method.requestDeserialize as (input: Buffer | BinaryReader) => unknown;
    return [name, {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          // ts-proto's decode(input) uses a BinaryReader it is given, nested messages included.
          return lenient(new BinaryReader(bytes, strictUtf8));
        } catch (err) {
          if ((err as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') return marked({}, UNDECODABLE);
          try {
            return marked(lenient(bytes), INVALID_UTF8);
          } catch {
            return marked({}, UNDECODABLE);
          }
        }
      },
    }] as const;
  });
  return Object.fromEntries(strict) as ServiceDefinition;
}

/** `request` with `mark` set, not enumerable: not a field, and not sent on by anything that copies fields. */
function marked(request: unknown, mark: symbol): unknown {
  if (typeof request === 'object' && request !== null) Object.defineProperty(request, mark, { value: true });
  return request;
}

/** Throws INVALID_ARGUMENT (rule "encoding") for a request withStrictUtf8 marked: not protobuf, or not UTF-8. */
export function assertUtf8Request(request: unknown): void {
  if (typeof request !== 'object' || request === null) return;
  if (UNDECODABLE in request) throw invalidArgument('request', 'encoding', 'request is not a valid protobuf message');
  if (INVALID_UTF8 in request) throw invalidArgument('request', 'encoding', 'request holds a string that is not valid UTF-8');
}
