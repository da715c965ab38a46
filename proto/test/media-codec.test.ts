import { describe, expect, it } from 'vitest';
import { GetImageResponse, StoreImageRequest, StoreImageStreamRequest } from '../src/contract/gen/dynamic_events/media/v1/media.js';
import { encodeGetImageResponse, encodeStoreImageRequest, encodeStoreImageStreamRequest } from '../src/contract/media-codec.js';
import { media } from '../src/contract/index.js';

const generated = (data: Buffer) => Buffer.from(StoreImageRequest.encode({ data }).finish());

describe('media serializers', () => {
  it('encode StoreImageRequest exactly as the generated encoder, at every varint length boundary', () => {
    for (const size of [0, 1, 127, 128, 129, 16_383, 16_384, 117 * 1024, 2_097_151, 2_097_152]) {
      const data = Buffer.alloc(size, size % 251);
      if (size > 2) data[size - 1] = 7;
      const ours = encodeStoreImageRequest({ data });
      expect(ours.equals(generated(data)), `size ${size}`).toBe(true);
      expect(Buffer.from(StoreImageRequest.decode(ours).data).equals(data)).toBe(true);
    }
  });

  it('encode StoreImageStreamRequest exactly as the generated encoder: with and without the image, its bytes and the request id', () => {
    const ids = ['', 'req-1', 'é'.repeat(64)];
    for (const size of [0, 1, 127, 128, 16_383, 16_384, 117 * 1024, 2_097_152]) {
      const data = Buffer.alloc(size, size % 251);
      for (const requestId of ids) {
        for (const request of [{ image: { data }, requestId }, { image: undefined, requestId }]) {
          const ours = encodeStoreImageStreamRequest(request);
          const theirs = Buffer.from(StoreImageStreamRequest.encode(request).finish());
          expect(ours.equals(theirs), `size ${size}, id ${requestId.length}, image ${request.image !== undefined}`).toBe(true);
          const decoded = StoreImageStreamRequest.decode(ours);
          expect(decoded.requestId).toBe(requestId);
          if (request.image) expect(Buffer.from(decoded.image!.data).equals(data)).toBe(true);
        }
      }
    }
  });

  it('encode GetImageResponse exactly as the generated encoder, as a view over its bytes', () => {
    const response = { contentType: 'image/png', sizeBytes: '70000', chunk: Buffer.alloc(65_536, 3) };
    expect(encodeGetImageResponse(response).equals(Buffer.from(GetImageResponse.encode(response).finish()))).toBe(true);
  });

  it('are the ones the package exports for the media service and its client', () => {
    expect(media.MediaServiceService.storeImage.requestSerialize).toBe(encodeStoreImageRequest);
    expect(media.MediaServiceService.storeImageStream.requestSerialize).toBe(encodeStoreImageStreamRequest);
    expect(media.MediaServiceService.getImage.responseSerialize).toBe(encodeGetImageResponse);
    expect((media.MediaServiceClient as unknown as { service: unknown }).service).toBe(media.MediaServiceService);
    expect(media.MediaServiceService.storeImage.path).toBe('/dynamic_events.media.v1.MediaService/StoreImage');
  });
});
