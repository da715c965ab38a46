import { setMaxListeners } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Router } from '@koa/router';
import { AppError } from '@dynamic-events/proto';
import { untilDrained, type Logger, type StreamBudget } from '@dynamic-events/proto/runtime';
import type { RegistryClient } from '../../clients/registry.js';
import { unauthorizedFrame } from '../../api/sse.js';
import type { AccessEnd, AccessWatch } from '../../tokens/access-watch.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
import { FellBehindError } from '../../watch/chunk-queue.js';
import { eventQueryOf, kindsOf, readParams, type RawQuery } from '../query-params.js';
import { WatchHub } from '../../watch/watch-hub.js';
import { createSseBudget, createSseRoom, type SseRoom } from '../../watch/sse-room.js';
import { EVENT_FILTERS } from './lists.js';
import { readScopeOf, scopedFilter } from '../../tokens/read-scope.js';
import type { StreamCaps } from '../../watch/stream-caps.js';

interface StreamDeps {
  auth: GatewayMiddleware;
  registry: RegistryClient;
  /**
   * Ends a stream whose token is revoked or expires, whose token's domains are narrowed below what
   * it streams, or that was opened without a token when one is now required.
   */
  access: AccessWatch;
  logger: Logger;
  /** Aborted when shutdown starts: every stream ends cleanly and its client reconnects elsewhere. */
  draining: AbortSignal;
  /** Bytes the responses may hold for their clients (default createSseBudget()). */
  budget?: StreamBudget;
  /** How many streams may be open per token, per client address and in all (stream-caps.ts). */
  caps: StreamCaps;
}

/** A client that takes nothing for this long is cut off (it reconnects with its Last-Event-ID). */
const STREAM_STALL_MS = 30_000;

/** What a wait for room that timed out throws: handled as a client that stopped reading. */
function stallError(): Error {
  return Object.assign(new Error('no room for the stream within its stall limit'), { name: 'AbortError' });
}

/**
 * Writes the chunks to the response: the next one is asked for (a catch-up stream then reads and
 * renders a registry message for this client alone) only once the client took what it was sent,
 * and written once the gateway's SSE budget has room for it. Throws an AbortError when the client
 * stalls; 'cut' when it must end to make room, 'end' otherwise.
 */
async function writeChunks(chunks: AsyncIterableIterator<Buffer>, out: PassThrough, room: SseRoom, signal: AbortSignal): Promise<'end' | 'cut'> {
  try {
    for (;;) {
      if ((await room.caughtUp(signal, STREAM_STALL_MS)) === 'stalled') throw stallError();
      const next = await chunks.next();
      if (next.done || signal.aborted) return 'end';
      const verdict = await room.room(next.value.length, signal, STREAM_STALL_MS);
      if (verdict === 'gone') return 'end';
      if (verdict === 'stalled') throw stallError();
      if (verdict === 'cut') return 'cut';
      if (out.write(next.value)) continue;
      const drained = await untilDrained(out, signal, STREAM_STALL_MS);
      if (drained === 'stalled') throw stallError();
      if (drained === 'gone') return 'end';
    }
  } finally {
    await chunks.return?.();
  }
}

/** The registry names its own field (after_cursor): name the one this request used. */
function renameCursorField(err: unknown, field: string): unknown {
  if (!(err instanceof AppError) || err.details.field !== 'after_cursor') return err;
  return new AppError(err.code, err.message.replaceAll('after_cursor', field), { ...err.details, field }, err);
}

/**
 * GET …/dynamic-events/stream: what commits from now on (or after Last-Event-ID / ?after=), as SSE.
 * The registry's first message is awaited before answering, so a bad parameter or cursor is still
 * a 400 `{"error"}`; after that the response streams until the client leaves or the gateway shuts
 * down, or its access ends (then an `unauthorized` frame says why). Clients of one filter share a registry stream (watch-hub.ts): a client that falls more than
 * STREAM_LAG_BYTES behind, reads nothing for STREAM_STALL_MS, or holds more than its share of the
 * gateway's SSE bytes when they reach their bound (sse-room.ts), is ended and resumes from its last id.
 * How many may be open at once is `deps.caps`'s: beyond a cap the answer is 429 or 503.
 */
export function streamRoutes(router: Router<GatewayState>, base: string, deps: StreamDeps): void {
  const { auth, registry, access, logger, draining } = deps;
  // One listener per open (or opening) stream, by design: no count of them is a leak.
  setMaxListeners(0, draining);
  const hub = new WatchHub({ registry });
  const budget = deps.budget ?? createSseBudget();

  router.get(`${base}/dynamic-events/stream`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, [...EVENT_FILTERS, 'kinds', 'after']);
    const lastEventId = ctx.get('Last-Event-ID');
    const cursorField = lastEventId ? 'Last-Event-ID' : 'after';
    // A domain-restricted token streams within its domains (device changes never pass a domain filter).
    const query = scopedFilter(readScopeOf(ctx.state.token), { ...eventQueryOf(params), kinds: kindsOf(params.kinds), afterCursor: lastEventId || (params.after ?? '') });
    // Before any registry stream is opened for it: beyond a cap, 429 or 503 and nothing held.
    const leave = deps.caps({ token: ctx.state.token, remoteAddress: ctx.req.socket.remoteAddress });
    const stop = new AbortController();
    const end = () => stop.abort();
    const requestId = ctx.state.requestId;
    // Wired before the subscription: a client that leaves while it waits for a catch-up slot or the
    // registry's first message gives up its place, and no catch-up stream is opened or kept for it.
    ctx.req.once('close', end);
    draining.addEventListener('abort', end, { once: true });
    if (ctx.req.destroyed) end();
    let chunks: AsyncIterableIterator<Buffer>;
    try {
      chunks = await hub.subscribe(query, { requestId, signal: stop.signal });
    } catch (err) {
      draining.removeEventListener('abort', end);
      leave();
      // Nobody is left to answer.
      if (ctx.req.destroyed) return;
      stop.abort();
      throw renameCursorField(err, cursorField);
    }
    let lost: AccessEnd | undefined;
    // The admin credential is no registry token: it is not revoked, and ends only with the gateway.
    const release = ctx.state.adminReader
      ? () => {}
      : access.hold(
          ctx.state.token,
          (reason) => {
            lost = reason;
            end();
          },
          query,
        );
    ctx.status = 200;
    ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    const out = new PassThrough();
    ctx.body = out;
    const room = createSseRoom(budget, out, ctx.res);
    const cutOff = () => ctx.req.socket.destroy();
    void (async () => {
      try {
        out.write(': connected\n\n');
        if ((await writeChunks(chunks, out, room, stop.signal)) === 'cut') {
          // Ends after its last complete frame: Last-Event-ID resumes where it stopped.
          logger.info({ requestId }, 'event stream client held more than its share of the gateway\'s stream memory; ended, it resumes from its last id');
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        if (err instanceof FellBehindError) {
          logger.info({ requestId }, 'event stream client fell behind the shared stream; ended, it resumes from its last id');
        } else if ((err as { name?: string }).name === 'AbortError') {
          // The client stopped reading: nothing more can be said to it, cut the connection.
          logger.info({ requestId }, 'event stream client read nothing for 30 s; closed');
          ctx.req.socket.destroy();
        } else logger.warn({ err, requestId }, 'event stream ended by the registry; the client resumes from its last id');
      } finally {
        draining.removeEventListener('abort', end);
        release();
        leave();
        stop.abort();
        if (lost !== undefined) logger.info({ requestId, reason: lost }, 'event stream ended: its access ended');
        out.end(lost === undefined ? undefined : unauthorizedFrame(lost));
        room.close(cutOff, STREAM_STALL_MS);
      }
    })();
  });
}
