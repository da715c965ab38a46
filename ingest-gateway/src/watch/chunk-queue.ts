/** Ends an SSE client's queue that fell further behind the shared feed than its bound. */
export class FellBehindError extends Error {
  override name = 'FellBehindError';
}

type Waiter = { resolve(result: IteratorResult<Buffer>): void; reject(err: unknown): void };

/**
 * What one SSE client has yet to take, bounded in bytes. The shared feed never waits for a client
 * (one slow reader would hold back all the others), so a client that falls `maxBytes` behind is
 * ended with FellBehindError and resumes from its Last-Event-ID. A read takes everything queued
 * as one chunk: a client that lagged catches up in one socket write.
 */
export class ChunkQueue implements AsyncIterableIterator<Buffer> {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private waiter: Waiter | undefined;
  private finished = false;
  private error: unknown;

  constructor(private readonly maxBytes: number) {}

  /** Queues a chunk; false once the queue has ended (now or before) and takes no more. */
  push(chunk: Buffer): boolean {
    if (this.finished) return false;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ value: chunk, done: false });
      return true;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes <= this.maxBytes) return true;
    this.end(new FellBehindError(`the client fell more than ${this.maxBytes} bytes behind the stream`));
    return false;
  }

  /** Ends the queue: what is queued is dropped, the reader gets `error` or the end. */
  end(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.error = error;
    this.chunks = [];
    this.bytes = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter && error !== undefined) waiter.reject(error);
    else waiter?.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.chunks.length > 0) {
      const value = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.bytes);
      this.chunks = [];
      this.bytes = 0;
      return Promise.resolve({ value, done: false });
    }
    if (this.finished) {
      const error = this.error;
      this.error = undefined;
      return error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error);
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<Buffer>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Buffer> {
    return this;
  }
}
