/** GetImage streams chunks of at most this size; stores read in pieces of about this size. */
export const CHUNK_BYTES = 64 * 1024;

/** A stored image opened for reading. */
interface ImageReader {
  contentType: string;
  size: number;
  /** The bytes in order; stops (and releases the file or connection) when the signal aborts. */
  chunks: AsyncIterable<Buffer>;
}

/**
 * Where image bytes live, S3 or a local directory. Keys reaching a store have already been
 * validated (see domain/image-key.ts); stores still refuse anything else as a second guard.
 */
export interface ImageStorage {
  /** A short description for logs, never containing credentials. */
  readonly description: string;
  /**
   * Stores `bytes` under `key` unless an object with that key already exists (keys are content
   * hashes, so it holds the same bytes). Resolves true when this call wrote it.
   */
  put(key: string, bytes: Buffer, contentType: string): Promise<boolean>;
  /** Opens `key` for streaming, or resolves null when there is no such image. */
  open(key: string, signal: AbortSignal): Promise<ImageReader | null>;
  /** Proves the store is usable, creating the bucket or directory if missing; rejects otherwise. */
  check(): Promise<void>;
  /** Releases connections and handles. */
  close(): Promise<void>;
}
