import { AppError } from '@dynamic-events/proto';
import { createLimiter } from '@dynamic-events/proto/runtime';
import { ChunkQueue } from './chunk-queue.js';
import { createCatchUpSlots, type CatchUpSlots } from './catch-up-slots.js';
import type { RegistryClient } from '../clients/registry.js';
import type { ChangeKind, EventQuery, WatchMessage } from '../model.js';
import { Feed } from './watch-feed.js';
import { createFrameCache, KEEP_ALIVE_FRAME, sseFrame } from '../api/sse.js';

/**
 * How far (bytes of SSE text queued here, beyond the socket's own buffers) a client may fall behind
 * its shared feed before it is ended to resume: what a slow client costs the gateway at most.
 */
const STREAM_LAG_BYTES = 1024 * 1024;

const KEEP_ALIVE = Buffer.from(KEEP_ALIVE_FRAME);

/**
 * Registry streams a feed opens in a row to resume after its stream ended UNAVAILABLE, without
 * receiving a message in between, before it ends its clients with the error.
 */
const MAX_RESUMES = 3;
const RESUME_DELAY_MS = 100;
/** A stream that lived this long counts as having worked: the next failure starts the count again. */
const RESUME_RESET_MS = 5000;

/** A registry Watch of the feed's filter, after a cursor ('' from now). */
type Open = (afterCursor: string) => AsyncGenerator<WatchMessage>;

export type WatchQuery = EventQuery & { kinds: ChangeKind[]; afterCursor: string };
interface Call {
  requestId: string;
  /** Aborted when the client leaves. */
  signal: AbortSignal;
}

/**
 * The SSE chunk of a registry message, rendered once for every client reading it: the feed keeps
 * its chunks, a catch-up stream's frames are kept in a cache by cursor (clients reconnecting
 * together after a restart read the same older commits, each on a stream of its own) while any
 * catch-up runs or waits for a slot: the last one to end lets them go, so a gateway that served a
 * resume storm does not keep its largest frames (up to the cache's bound) while idle.
 */
type Render = (message: WatchMessage, feed?: Feed) => Buffer;

/**
 * The gateway's watches, as SSE chunks. Clients of the same filter share one registry stream: the
 * registry encodes, and the gateway decodes and renders, each change once however many follow it
 * (ten SSE clients with a stream each cost more CPU than the writes they reported). A client
 * resuming from a cursor the feed has dropped catches up on a registry stream of its own and
 * moves onto the feed when that stream reaches a change the feed holds, so after a restart every
 * reconnecting client ends up on the shared stream again.
 */
export class WatchHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly frames = createFrameCache();
  private readonly slots: CatchUpSlots;
  /** Catch-ups running or waiting for a slot: the last to end lets the frames they shared go. */
  private readonly catchUps = createLimiter({ onChange: (running) => running === 0 && this.frames.clear() });

  constructor(private readonly deps: { registry: RegistryClient; maxLagBytes?: number; catchUpStreams?: number }) {
    this.slots = createCatchUpSlots(deps.catchUpStreams);
  }

  /** Frames kept for catch-up streams now. */
  get framesKept(): number {
    return this.frames.size;
  }

  /**
   * The chunks for one client, once the registry accepted the filter and the cursor (it rejects
   * with the registry's AppError otherwise). The first chunk follows the registry's first message.
   */
  async subscribe(query: WatchQuery, call: Call, retried = false): Promise<AsyncIterableIterator<Buffer>> {
    // Every field but the cursor: a filter the registry refuses (since, until) gets a feed of its own, refused.
    const { afterCursor: _cursor, ...filter } = query;
    const key = JSON.stringify({ ...filter, kinds: [...query.kinds].sort() });
    const feed = this.feeds.get(key) ?? this.start(key, query, call.requestId);
    // Held until this client is on the feed or catching up to it: a feed nobody reads yet stays.
    // (A limiter without a bound always has a unit.)
    const joining = feed.pending.tryAcquire()!;
    try {
      await feed.ready;
      if (feed.ended) {
        // Its registry stream failed right after it started: one new try, then the error is the client's.
        if (retried) throw new AppError('UNAVAILABLE', 'the registry ended the watch: try again', {});
        return await this.subscribe(query, call, true);
      }
      if (query.afterCursor === '') return this.join(key, feed, call, KEEP_ALIVE);
      const after = feed.framesAfter(query.afterCursor);
      if (after !== undefined) return this.join(key, feed, call, after);
      return await this.catchUp(key, feed, query, call);
    } finally {
      joining();
      this.release(key, feed);
    }
  }

  private render: Render = (message, feed) => {
    if (message.changes.length === 0) return KEEP_ALIVE;
    let text = '';
    for (const change of message.changes) text += feed ? sseFrame(change) : this.frames.frame(change);
    const chunk = Buffer.from(text);
    feed?.remember(chunk, message.changes.length);
    return chunk;
  };

  private start(key: string, query: WatchQuery, requestId: string): Feed {
    const feed = new Feed();
    // The feed's registry calls carry the request id of the client that opened it.
    const open: Open = (afterCursor) => this.deps.registry.watch({ ...query, afterCursor }, { requestId, signal: feed.stop.signal });
    const messages = open('');
    feed.ready = messages.next().then((first) => {
      if (!first.done) feed.cursor = first.value.cursor;
    });
    feed.ready.then(
      () => void this.pump(key, feed, messages, open),
      (err) => this.finish(key, feed, err),
    );
    this.feeds.set(key, feed);
    return feed;
  }

  /**
   * Renders the feed's registry messages for its clients. When the registry stream ends UNAVAILABLE
   * (the registry's connection reached its age and grpc-js dropped it, a replica shutting down) the
   * feed resumes after its last cursor on a new stream, with no gap and no duplicate, and its
   * clients notice nothing: ending them would disconnect every SSE client of the gateway at least
   * once a minute (MAX_CONNECTION_AGE_MS). Other errors, or more than MAX_RESUMES streams in a row
   * that ended within RESUME_RESET_MS, end them.
   */
  private async pump(key: string, feed: Feed, first: AsyncGenerator<WatchMessage>, open: Open): Promise<void> {
    let messages = first;
    let error: unknown;
    for (let failed = 0, openedAt = Date.now(); ; openedAt = Date.now()) {
      try {
        for await (const message of messages) {
          feed.cursor = message.cursor;
          const chunk = this.render(message, feed);
          for (const queue of feed.subscribers) if (!queue.push(chunk)) feed.subscribers.delete(queue);
          this.release(key, feed);
        }
        error = new AppError('UNAVAILABLE', 'the registry ended the watch', {});
      } catch (err) {
        error = err;
      }
      // Every resumed stream opens with a keep-alive, so only a stream's age tells it worked.
      if (Date.now() - openedAt >= RESUME_RESET_MS) failed = 0;
      if (feed.stop.signal.aborted || !(error instanceof AppError && error.code === 'UNAVAILABLE') || ++failed > MAX_RESUMES) break;
      await new Promise((resolve) => setTimeout(resolve, RESUME_DELAY_MS * failed));
      if (feed.stop.signal.aborted) break;
      messages = open(feed.cursor);
    }
    this.finish(key, feed, feed.stop.signal.aborted ? undefined : error);
  }

  /** Ends a feed and its clients (they resume from their Last-Event-ID); a later client starts a new one. */
  private finish(key: string, feed: Feed, error: unknown): void {
    feed.ended = true;
    feed.stop.abort();
    if (this.feeds.get(key) === feed) this.feeds.delete(key);
    for (const queue of feed.subscribers) queue.end(error);
    feed.subscribers.clear();
  }

  /** Stops a feed nobody reads or waits for. */
  private release(key: string, feed: Feed): void {
    if (feed.subscribers.size === 0 && feed.pending.held === 0 && !feed.ended) this.finish(key, feed, undefined);
  }

  private join(key: string, feed: Feed, call: Call, first: Buffer): ChunkQueue {
    const queue = new ChunkQueue(this.deps.maxLagBytes ?? STREAM_LAG_BYTES);
    if (first.length > 0) queue.push(first);
    feed.subscribers.add(queue);
    const leave = () => {
      queue.end();
      feed.subscribers.delete(queue);
      this.release(key, feed);
    };
    if (call.signal.aborted) leave();
    else call.signal.addEventListener('abort', leave, { once: true });
    return queue;
  }

  /** A registry stream of the client's own from its cursor, until it meets a change the feed holds. */
  private async catchUp(key: string, feed: Feed, query: WatchQuery, call: Call): Promise<AsyncIterableIterator<Buffer>> {
    const done = this.catchUps.tryAcquire()!;
    // Held while the stream reads history: until it joins the feed, ends, or the registry says it
    // reached the present (a keep-alive after its first message).
    const free = await this.slots.acquire(call.signal).catch((err: unknown) => {
      done();
      throw err;
    });
    const stop = new AbortController();
    const abort = () => stop.abort();
    call.signal.addEventListener('abort', abort, { once: true });
    const messages = this.deps.registry.watch(query, { requestId: call.requestId, signal: stop.signal });
    let first: IteratorResult<WatchMessage>;
    try {
      first = await messages.next();
    } catch (err) {
      call.signal.removeEventListener('abort', abort);
      free();
      done();
      throw err;
    }
    // The slot, this catch-up's count and its place in feed.pending are released once, by `end`:
    // the generator below runs it when it finishes, and its return() (the route reads it to its
    // end, or returns it) runs it too.
    const joining = feed.pending.tryAcquire()!;
    let joined: ChunkQueue | undefined;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      free();
      done();
      stop.abort();
      call.signal.removeEventListener('abort', abort);
      joining();
      if (!joined) this.release(key, feed);
    };
    const chunks = async function* (this: WatchHub): AsyncGenerator<Buffer> {
      try {
        if (!first.done) yield this.render(first.value);
        for await (const message of messages) {
          if (message.changes.length === 0) free();
          yield this.render(message);
          const last = message.changes.at(-1)?.cursor;
          const after = last === undefined || feed.ended ? undefined : feed.framesAfter(last);
          if (after === undefined) continue;
          stop.abort();
          joined = this.join(key, feed, call, after);
          break;
        }
      } finally {
        end();
      }
      if (joined) yield* joined;
    }.call(this);
    // A generator return()ed before its first next() runs neither its body nor its finally: a
    // response that ends before it asks for a chunk still gives back what this catch-up holds.
    const returned = chunks.return.bind(chunks);
    chunks.return = (value) => {
      end();
      return returned(value);
    };
    return chunks;
  }
}
