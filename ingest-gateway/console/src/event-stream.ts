import { queryString, type Api, type Query } from './api.js';
import type { EventJson } from './model.js';
import { createSseParser } from './sse-parser.js';

/** What the status line says about the stream. */
export type StreamState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'reconnecting'; inSeconds: number } | { kind: 'stopped'; reason: string };

interface FollowOptions {
  api: Api;
  /** The stream's filters (device_name, object, domain, event_type, token_id). */
  filters: Query;
  onEvents: (events: EventJson[]) => void;
  onState: (state: StreamState) => void;
}

/** Waits between reconnects: doubled after each failed attempt, from 1 s up to 15 s. */
const BACKOFF_MS = { first: 1000, max: 15_000 };

/**
 * Follows `…/dynamic-events/stream` with fetch (EventSource cannot send the Authorization header):
 * parses the frames as they arrive, hands each chunk's events over at once, and after a disconnect
 * reconnects with backoff, resuming with `Last-Event-ID` so nothing is missed or repeated. A refusal
 * (400, 401, 403, 404) or an `unauthorized` frame stops it: retrying would be refused the same way.
 * Returns the function that stops it.
 */
export function followEvents(options: FollowOptions): () => void {
  const { api, onEvents, onState } = options;
  const stop = new AbortController();
  let lastEventId: string | undefined;
  let backoff = BACKOFF_MS.first;
  const url = `${api.base}/dynamic-events/stream${queryString({ ...options.filters, kinds: 'event.created' })}`;

  const readOnce = async (): Promise<string | undefined> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${api.credential}`, Accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    const res = await fetch(url, { headers, signal: stop.signal });
    if (!res.ok || !res.body) {
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      if (res.status >= 400 && res.status < 500 && res.status !== 429) return body.error ?? `refused (${res.status})`;
      throw new Error(`stream answered ${res.status}`);
    }
    onState({ kind: 'live' });
    backoff = BACKOFF_MS.first;
    const parse = createSseParser();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return undefined;
      const events: EventJson[] = [];
      for (const frame of parse(value)) {
        if (frame.event === 'unauthorized') return (JSON.parse(frame.data) as { error?: string }).error ?? 'access ended';
        if (frame.id !== undefined) lastEventId = frame.id;
        if (frame.event === 'event.created') events.push(JSON.parse(frame.data) as EventJson);
      }
      if (events.length > 0) onEvents(events);
    }
  };

  const run = async () => {
    onState({ kind: 'connecting' });
    while (!stop.signal.aborted) {
      try {
        const refused = await readOnce();
        if (refused !== undefined) {
          onState({ kind: 'stopped', reason: refused });
          return;
        }
      } catch {
        // A network failure or a server-side end: reconnect below.
      }
      if (stop.signal.aborted) return;
      onState({ kind: 'reconnecting', inSeconds: Math.round(backoff / 1000) });
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, BACKOFF_MS.max);
    }
  };
  void run();
  return () => stop.abort();
}
