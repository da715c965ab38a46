import { makeGenericClientConstructor } from '@grpc/grpc-js';
import {
  GetImageResponse,
  MediaServiceClient as GeneratedMediaServiceClient,
  MediaServiceService as GeneratedMediaServiceService,
  type StoreImageRequest,
  type StoreImageStreamRequest,
} from './gen/dynamic_events/media/v1/media.js';

/**
 * Serializers for the media messages that carry image bytes. ts-proto's serializers copy an image
 * three times on the way out (the writer's buffer grows to hold it, finish() slices it, and
 * Buffer.from copies the slice); under image load those 117 KiB copies are a large share of the
 * gateway's allocations and drive its major GCs. The wire bytes are the same as the generated
 * encoders' (a test compares them); only the copies go.
 *
 * This module is the `media` namespace of the package: the generated code, with the service
 * definition and client below in place of the generated ones (an explicit export wins over `*`).
 */
export * from './gen/dynamic_events/media/v1/media.js';

/** Field 1 (`data`), wire type 2 (length-delimited). */
const DATA_TAG = (1 << 3) | 2;

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    length++;
  }
  return length;
}

/** Writes `value` as a protobuf varint at `pos`; answers the position after it. */
function writeVarint(out: Buffer, pos: number, value: number): number {
  for (; value >= 0x80; value = Math.floor(value / 0x80)) out[pos++] = (value & 0x7f) | 0x80;
  out[pos++] = value;
  return pos;
}

/** StoreImageRequest in one allocation: tag, length, then the bytes copied once. */
export function encodeStoreImageRequest(request: StoreImageRequest): Buffer {
  const data = request.data;
  // proto3: an empty `bytes` field is the default and is not written.
  if (data.length === 0) return Buffer.alloc(0);
  const out = Buffer.allocUnsafe(1 + varintLength(data.length) + data.length);
  out[0] = DATA_TAG;
  out.set(data, writeVarint(out, 1, data.length));
  return out;
}

/** Field 1 (`image`) and field 2 (`request_id`) of StoreImageStreamRequest, both length-delimited. */
const IMAGE_TAG = (1 << 3) | 2;
const REQUEST_ID_TAG = (2 << 3) | 2;

/** StoreImageStreamRequest in one allocation: the image's field around its bytes (copied once), then the request id. */
export function encodeStoreImageStreamRequest(request: StoreImageStreamRequest): Buffer {
  const data = request.image?.data ?? Buffer.alloc(0);
  const id = request.requestId === '' ? undefined : Buffer.from(request.requestId, 'utf8');
  const inner = data.length === 0 ? 0 : 1 + varintLength(data.length) + data.length;
  const imageBytes = request.image === undefined ? 0 : 1 + varintLength(inner) + inner;
  const out = Buffer.allocUnsafe(imageBytes + (id === undefined ? 0 : 1 + varintLength(id.length) + id.length));
  let pos = 0;
  if (request.image !== undefined) {
    out[pos++] = IMAGE_TAG;
    pos = writeVarint(out, pos, inner);
    if (data.length > 0) {
      out[pos++] = DATA_TAG;
      pos = writeVarint(out, pos, data.length);
      out.set(data, pos);
      pos += data.length;
    }
  }
  if (id !== undefined) {
    out[pos++] = REQUEST_ID_TAG;
    out.set(id, writeVarint(out, pos, id.length));
  }
  return out;
}

/** A GetImageResponse as a Buffer over the encoder's bytes (finish() already copied them once). */
export function encodeGetImageResponse(response: GetImageResponse): Buffer {
  const bytes = GetImageResponse.encode(response).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The media service definition with those serializers; register and dial this one. */
export const MediaServiceService = {
  ...GeneratedMediaServiceService,
  storeImage: { ...GeneratedMediaServiceService.storeImage, requestSerialize: encodeStoreImageRequest },
  storeImageStream: { ...GeneratedMediaServiceService.storeImageStream, requestSerialize: encodeStoreImageStreamRequest },
  getImage: { ...GeneratedMediaServiceService.getImage, responseSerialize: encodeGetImageResponse },
} as const;

export type MediaServiceService = typeof MediaServiceService;

/** The generated client class over that definition (same methods and types). */
export type MediaServiceClient = GeneratedMediaServiceClient;
export const MediaServiceClient = makeGenericClientConstructor(
  MediaServiceService,
  'dynamic_events.media.v1.MediaService',
) as unknown as typeof GeneratedMediaServiceClient;
