import type { Writable } from 'node:stream';

/**
 * Waits until `stream` drains: 'drained'; 'gone' once `signal` aborts or the stream closes (a
 * destroyed stream never drains, and 'drain' alone would wait for it forever); 'stalled' after `ms`
 * (omitted: no limit). An SSE response's body and a gRPC server stream wait the same way.
 *
 * The limit is a timer of its own, not AbortSignal.timeout() combined with AbortSignal.any(): Node 20
 * holds the timeout signal of such a combination only weakly, so a collection before it fires drops
 * it and the wait outlives its limit for good (nodejs/node#57736), keeping its response, its chunk
 * and its catch-up stream.
 */
export function untilDrained(stream: Writable, signal: AbortSignal, ms?: number): Promise<'drained' | 'gone' | 'stalled'> {
  if (signal.aborted || stream.destroyed) return Promise.resolve('gone');
  return new Promise((resolve) => {
    const done = (verdict: 'drained' | 'gone' | 'stalled') => {
      clearTimeout(timer);
      stream.off('drain', drained);
      stream.off('close', gone);
      signal.removeEventListener('abort', gone);
      resolve(verdict);
    };
    const drained = () => done('drained');
    const gone = () => done('gone');
    const timer = ms === undefined ? undefined : setTimeout(() => done('stalled'), ms);
    stream.once('drain', drained);
    stream.once('close', gone);
    signal.addEventListener('abort', gone, { once: true });
  });
}
