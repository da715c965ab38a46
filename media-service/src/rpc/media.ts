import { invalidArgument, type media } from '@dynamic-events/proto';
import { type AsyncServiceImpl } from '@dynamic-events/proto/runtime';
import type { ImageStream } from '../domain/get-image.js';
import type { StoredImage } from '../domain/store-image.js';

/** The domain operations the handlers call. */
interface MediaRpcDeps {
  storeImage: (bytes: Buffer) => Promise<StoredImage>;
  getImage: (key: string, signal: AbortSignal) => Promise<ImageStream>;
}

/** The MediaService handlers: the only place that maps protobuf messages to domain calls and back. */
export function createMediaRpc(deps: MediaRpcDeps): AsyncServiceImpl<media.MediaServiceServer> {
  async function storeImage(request: media.StoreImageRequest): Promise<media.StoreImageResponse> {
    const stored = await deps.storeImage(request.data);
    return {
      key: stored.key,
      contentType: stored.contentType,
      sizeBytes: String(stored.sizeBytes),
      width: stored.width,
      height: stored.height,
      created: stored.created,
    };
  }

  return {
    storeImage,
    // The same, as a message on a lane (proto's grpc-lanes-server.ts): what the gateway sends on.
    async storeImageStream(request) {
      if (!request.image) throw invalidArgument('image', 'required', 'image is required');
      return { image: await storeImage(request.image) };
    },

    async *getImage(request, ctx) {
      const image = await deps.getImage(request.key, ctx.signal);
      const header = { contentType: image.contentType, sizeBytes: String(image.sizeBytes) };
      let first = true;
      try {
        for await (const chunk of image.chunks) {
          yield first ? { ...header, chunk } : { contentType: '', sizeBytes: '0', chunk };
          first = false;
        }
      } catch (err) {
        // The caller left and the read was aborted on purpose: nothing to report to anyone.
        if (ctx.signal.aborted) return;
        throw err;
      }
      if (first) yield { ...header, chunk: Buffer.alloc(0) };
    },
  };
}
