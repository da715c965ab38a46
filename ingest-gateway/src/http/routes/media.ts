import { Readable } from 'node:stream';
import type { Router } from '@koa/router';
import { AppError, quoteName } from '@dynamic-events/proto';
import type { MediaClient } from '../../clients/media.js';
import type { GatewayContext, GatewayState } from '../context.js';

/** Keys are "{sha256 hex}.{ext}"; anything outside this shape is answered 404 without asking media. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/**
 * Stored images are immutable (the key is a content hash) and may be any bytes a caller sent
 * as an "image": never let a browser sniff or run them, and let caches keep them forever.
 */
const IMAGE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'public, max-age=31536000, immutable',
};

/** The public URL of a stored image: this route's path under the public base URL (the one owner of it). */
export function mediaUrl(publicBaseUrl: string, base: string, key: string): string {
  return `${publicBaseUrl}${base}/media/${encodeURIComponent(key)}`;
}

/**
 * GET/HEAD {base}/media/{key}: streams media.GetImage with its exact bytes, type and length.
 * Public (no bearer token): image URLs end up in <img> tags, and keys cannot be guessed.
 * If the HTTP client goes away, the gRPC call is cancelled at once (even if media has stalled).
 */
export function mediaRoutes(router: Router<GatewayState>, base: string, deps: { media: MediaClient }): void {
  router.get(`${base}/media/:key`, async (ctx) => {
    const key = ctx.params.key ?? '';
    if (!KEY.test(key) || key.includes('..')) throw new AppError('NOT_FOUND', `image ${quoteName(key, '"')} not found`);
    const etag = `"${key}"`;
    const condition = ctx.get('If-None-Match');
    // A key names its bytes forever, so a matching tag is answered without asking media. "*" only
    // matches an image that exists (RFC 9110 13.1.2): that one is opened first, a missing key is 404.
    if (etagMatches(condition, etag)) return notModified(ctx, etag);

    const gone = new AbortController();
    // 'close' also follows a complete response; cancelling a finished call does nothing.
    ctx.res.once('close', () => gone.abort());
    const image = await deps.media.openImage(key, { requestId: ctx.state.requestId, signal: gone.signal });
    if (matchesAny(condition)) {
      await image.cancel();
      return notModified(ctx, etag);
    }
    ctx.status = 200;
    ctx.set({ ...IMAGE_HEADERS, ETag: etag, 'Content-Type': image.contentType });
    if (ctx.method === 'HEAD') {
      await image.cancel();
      ctx.length = image.sizeBytes;
      return;
    }
    // A streamed body makes Node's pipeline add seven 'close' listeners to the response on top of the
    // gateway's four (access log, metrics, client errors, the cancel above); all go when it ends.
    // Not a leak: without this, every process warned "MaxListenersExceededWarning" on its first image.
    ctx.res.setMaxListeners(16);
    ctx.body = Readable.from(image.chunks, { objectMode: false });
    ctx.length = image.sizeBytes;
  });
}

function notModified(ctx: GatewayContext, etag: string): void {
  ctx.status = 304;
  ctx.set({ ETag: etag, ...IMAGE_HEADERS });
}

/** Whether If-None-Match names this image's tag (strong or weak). */
function etagMatches(header: string, etag: string): boolean {
  if (header === '') return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === etag || tag === `W/${etag}`;
  });
}

/** If-None-Match: * (any current representation). */
const matchesAny = (header: string): boolean => header.split(',').some((candidate) => candidate.trim() === '*');
