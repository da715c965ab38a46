import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Router } from '@koa/router';
import { AppError, type Logger } from '@dynamic-events/proto';
import type { RegistryClient } from '../clients/registry.js';
import type { GatewayMiddleware, GatewayState } from '../context.js';
import type { WatchChange, WatchMessage } from '../model.js';
import { presentDevice, presentEventType, presentObject } from '../presenters/entities.js';
import { presentEvent } from '../presenters/event.js';
import { eventQueryOf, kindsOf, readParams, type RawQuery } from '../query-params.js';
import { EVENT_FILTERS } from './lists.js';

export interface StreamDeps {
  auth: GatewayMiddleware;
  registry: RegistryClient;
  logger: Logger;
  /** Aborted when shutdown starts: every stream ends cleanly and its client reconnects elsewhere. */
  draining: AbortSignal;
}

/** A client that takes nothing for this long is cut off (it reconnects with its Last-Event-ID). */
export const STREAM_STALL_MS = 30_000;

/** Frames kept for other clients following the same commits. */
const RECENT_FRAMES = 4096;

/**
 * The SSE text of a watch message: one frame per change, or a comment line for a keep-alive (the
 * registry sends one at least every 10 s). Recent frames are kept by cursor: a cursor names one
 * change, so clients following the same commits share its JSON instead of each rendering it.
 */
export function createFrameCache(): (message: WatchMessage) => string {
  const recent = new Map<string, string>();
  const frameOf = (change: WatchChange): string => {
    const cached = recent.get(change.cursor);
    if (cached !== undefined) return cached;
    const frame = sseFrame(change);
    recent.set(change.cursor, frame);
    // A Map keeps insertion order: the oldest frame goes first.
    if (recent.size > RECENT_FRAMES) recent.delete(recent.keys().next().value as string);
    return frame;
  };
  return (message) => (message.changes.length === 0 ? ': keep-alive\n\n' : message.changes.map(frameOf).join(''));
}

/** One Server-Sent Events frame for a change. */
export function sseFrame(message: WatchChange): string {
  const data =
    message.kind === 'event.created'
      ? presentEvent(message.event)
      : message.kind === 'device.created'
        ? presentDevice(message.device)
        : message.kind === 'object.created'
          ? presentObject(message.object)
          : presentEventType(message.eventType);
  // JSON.stringify escapes line breaks, so the data stays on one line.
  return `id: ${message.cursor}\nevent: ${message.kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The registry names its own field (after_cursor): name the one this request used. */
function renameCursorField(err: unknown, field: string): unknown {
  if (!(err instanceof AppError) || err.details.field !== 'after_cursor') return err;
  return new AppError(err.code, err.message.replaceAll('after_cursor', field), { ...err.details, field }, err);
}

/**
 * GET …/dynamic-events/stream: what commits from now on (or after Last-Event-ID / ?after=), as SSE.
 * The first registry message (a keep-alive) is awaited before answering, so a bad parameter or
 * cursor is still a 400 `{"error"}`; after that the response streams until the client leaves or the
 * gateway shuts down, writing no faster than the client reads (back-pressure reaches the registry).
 */
export function streamRoutes(router: Router<GatewayState>, base: string, deps: StreamDeps): void {
  const { auth, registry, logger, draining } = deps;
  const frameOf = createFrameCache();

  router.get(`${base}/dynamic-events/stream`, auth, async (ctx) => {
    const params = readParams(ctx.query as RawQuery, [...EVENT_FILTERS, 'kinds', 'after']);
    const lastEventId = ctx.get('Last-Event-ID');
    const cursorField = lastEventId ? 'Last-Event-ID' : 'after';
    const query = { ...eventQueryOf(params), kinds: kindsOf(params.kinds), afterCursor: lastEventId || (params.after ?? '') };
    const stop = new AbortController();
    const end = () => stop.abort();
    const messages = registry.watch(query, { requestId: ctx.state.requestId, signal: stop.signal });
    let first: IteratorResult<WatchMessage>;
    try {
      first = await messages.next();
    } catch (err) {
      throw renameCursorField(err, cursorField);
    }
    ctx.req.once('close', end);
    draining.addEventListener('abort', end, { once: true });
    ctx.status = 200;
    ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    const out = new PassThrough();
    ctx.body = out;
    const requestId = ctx.state.requestId;
    void (async () => {
      try {
        out.write(': connected\n\n');
        if (!first.done) out.write(frameOf(first.value));
        for await (const message of messages) {
          if (!out.write(frameOf(message))) await once(out, 'drain', { signal: AbortSignal.any([stop.signal, AbortSignal.timeout(STREAM_STALL_MS)]) });
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        if ((err as { name?: string }).name === 'AbortError') {
          // The client stopped reading: nothing more can be said to it, cut the connection.
          logger.info({ requestId }, 'event stream client read nothing for 30 s; closed');
          ctx.req.socket.destroy();
        } else logger.warn({ err, requestId }, 'event stream ended by the registry; the client resumes from its last id');
      } finally {
        draining.removeEventListener('abort', end);
        stop.abort();
        out.end();
      }
    })();
  });
}
