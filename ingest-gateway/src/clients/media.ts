import { AppError, media, MEDIA_SERVICE_NAME } from '@dynamic-events/proto';
import { callStream, createGrpcClient, createHealthChecker, createLanePool, type Interceptor } from '@dynamic-events/proto/runtime';
import type { CallOptions, StoredImage } from '../model.js';

/** An image being streamed from the media service; the first message already arrived (it exists). */
export interface ImageStream {
  contentType: string;
  sizeBytes: number;
  /** The bytes in order; stopping the iteration early cancels the gRPC call. */
  chunks: AsyncIterable<Buffer>;
  /** Cancels the gRPC call when the chunks will not be read (HEAD, client gone before the body). */
  cancel(): Promise<void>;
}

/** The media service as the gateway uses it; failures reject with AppError. */
export interface MediaClient {
  /** Stores decoded image bytes; INVALID_ARGUMENT when they are not a supported image. */
  storeImage(data: Buffer, options: CallOptions): Promise<StoredImage>;
  /** Opens a stored image; NOT_FOUND for an unknown key. */
  openImage(key: string, options: CallOptions): Promise<ImageStream>;
  isServing(deadlineMs: number): Promise<boolean>;
  close(): void;
}

/** Settings of the media client. */
interface MediaClientOptions {
  /** Deadline of each image stored. */
  deadlineMs: number;
  /** Deadline of a whole GetImage stream, which lasts as long as a slow HTTP client reads. */
  streamDeadlineMs: number;
  /** MAX_IMAGE_BYTES plus room for the envelope; must match the media server's limit. */
  maxMessageBytes: number;
  /** Run on every call (the grpc_client_* metrics). */
  interceptors?: Interceptor[];
}

/** Creates the gateway's only media client (one channel, reused by every request). */
export function createMediaClient(address: string, options: MediaClientOptions): MediaClient {
  const client = createGrpcClient(media.MediaServiceClient, address, { maxMessageBytes: options.maxMessageBytes, interceptors: options.interceptors });
  const health = createHealthChecker(address, { interceptors: options.interceptors });
  // Images travel as messages on a few open StoreImageStream lanes (one per image in flight), not as
  // unary calls: a call per image costs both sides several times what the message does (`npm run bench:grpc`).
  const lanes = createLanePool(() => client.storeImageStream(), { deadlineMs: options.deadlineMs, channel: client.getChannel() });

  return {
    async storeImage(data, call) {
      const { image: stored } = await lanes.send({ image: { data }, requestId: call.requestId ?? '' });
      if (stored === undefined) throw new AppError('INTERNAL', 'media StoreImageStream answered without an image', {});
      return { key: stored.key, contentType: stored.contentType, sizeBytes: Number(stored.sizeBytes) };
    },
    async openImage(key, call) {
      const messages = callStream(client.getImage.bind(client), { key }, {
        deadlineMs: options.streamDeadlineMs,
        requestId: call.requestId,
        signal: call.signal,
      });
      // Wait for the first message so an unknown key becomes a 404 before any header is sent.
      const first = await messages.next();
      if (first.done) throw new Error('media GetImage stream ended without a message');
      const head = first.value;
      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          if (head.chunk.length > 0) yield head.chunk;
          for await (const message of messages) if (message.chunk.length > 0) yield message.chunk;
        } finally {
          // Also reached when the reader stops at the first chunk, before the loop above owns `messages`.
          await messages.return(undefined);
        }
      }
      return {
        contentType: head.contentType,
        sizeBytes: Number(head.sizeBytes),
        chunks: chunks(),
        cancel: async () => {
          await messages.return(undefined);
        },
      };
    },
    isServing: (deadlineMs) => health.isServing(MEDIA_SERVICE_NAME, deadlineMs),
    close() {
      client.close();
      health.close();
    },
  };
}
