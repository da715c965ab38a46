import http from 'node:http';
import https from 'node:https';
import { addAbortSignal } from 'node:stream';
import { Client } from 'minio';
import { contentTypeOfKey, isImageKey } from '../domain/image-key.js';
import type { ImageStorage } from './types.js';

/** Connection and bucket of the S3 store (from S3_* variables, see config.ts). */
interface S3StorageOptions {
  /** Host name or address of the S3 server, without scheme or port. */
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
  /** A request with no traffic for this long fails instead of hanging (default 30 s). */
  idleTimeoutMs?: number;
  /** Bound on one health check (default 5 s). */
  checkTimeoutMs?: number;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** HEAD answers carry no body, so a missing object is "NotFound" there and "NoSuchKey" on GET. */
function isMissing(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'NotFound' || code === 'NoSuchKey';
}

/**
 * A keep-alive agent whose sockets are destroyed after `idleTimeoutMs` without traffic: the minio
 * client sets no timeouts, and a stalled S3 server must fail a call rather than hold it forever.
 */
function createTransportAgent(useSSL: boolean, idleTimeoutMs: number): http.Agent {
  const agent = useSSL ? new https.Agent({ keepAlive: true, timeout: idleTimeoutMs }) : new http.Agent({ keepAlive: true, timeout: idleTimeoutMs });
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    socket?.on('timeout', () => socket.destroy(new Error(`S3 server sent nothing for ${idleTimeoutMs} ms`)));
    return socket;
  };
  return agent;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Images as objects in one S3 bucket (MinIO, AWS, any S3 API), addressed path-style. Objects carry
 * their Content-Type, so the bucket can also be served directly by a CDN later.
 */
export function createS3Storage(options: S3StorageOptions): ImageStorage {
  const { bucket, region } = options;
  const agent = createTransportAgent(options.useSSL, options.idleTimeoutMs ?? 30_000);
  const client = new Client({
    endPoint: options.endPoint,
    port: options.port,
    useSSL: options.useSSL,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region,
    pathStyle: true,
    transportAgent: agent,
    // Its retry path writes to the console; a failed call is reported to the caller, who may retry.
    retryOptions: { disableRetry: true },
  });

  return {
    description: `s3 ${options.useSSL ? 'https' : 'http'}://${options.endPoint}:${options.port}/${bucket}`,

    async put(key, bytes, contentType) {
      if (!isImageKey(key)) throw new Error('refusing a key that is not an image key');
      try {
        await client.statObject(bucket, key);
        return false;
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
      // Below the client's part size, so this is one PUT (no multipart upload).
      await client.putObject(bucket, key, bytes, bytes.length, { 'Content-Type': contentType });
      return true;
    },

    async open(key, signal) {
      if (!isImageKey(key)) return null;
      try {
        const stat = await client.statObject(bucket, key);
        const body = await client.getObject(bucket, key);
        const stored = stat.metaData['content-type'];
        return {
          contentType: typeof stored === 'string' && stored !== '' ? stored : contentTypeOfKey(key),
          size: stat.size,
          // Aborting destroys the response, which frees the connection.
          chunks: addAbortSignal(signal, body),
        };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async check() {
      await withTimeout(
        (async () => {
          if (await client.bucketExists(bucket)) return;
          try {
            await client.makeBucket(bucket, region);
          } catch (err) {
            // Another replica created it between our two requests.
            const code = errorCode(err);
            if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
          }
        })(),
        options.checkTimeoutMs ?? 5000,
        'S3 bucket check',
      );
    },

    async close() {
      agent.destroy();
    },
  };
}
