/** A minimal Server-Sent Events reader over fetch, for tests and the bench: frames as they arrive. */

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** Comment lines (`: keep-alive`). */
  comments: string[];
  /** performance.now() when the frame was complete. */
  at: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body of a non-200 answer (JSON error). */
  errorBody?: unknown;
  frames: SseFrame[];
  /** Resolves once `predicate` holds for the frames so far; rejects after `timeoutMs`. */
  until(predicate: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const frames: SseFrame[] = [];
  const checks = new Set<() => void>();
  if (res.status !== 200) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, errorBody: text ? JSON.parse(text) : undefined, frames, until: () => Promise.reject(new Error(`status ${res.status}`)), ended: Promise.resolve(), close: () => abort.abort() };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const frame: SseFrame = { comments: [], at: performance.now() };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id' || field === 'event' || field === 'data') frame[field] = value;
            }
          }
          frames.push(frame);
          for (const check of checks) check();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      for (const check of checks) check();
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    frames,
    ended,
    close: () => abort.abort(),
    until: (predicate, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(frames)) {
            checks.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          checks.delete(check);
          reject(new Error(`SSE condition not met after ${timeoutMs} ms; ${frames.length} frames`));
        }, timeoutMs);
        checks.add(check);
        check();
      }),
  };
}
