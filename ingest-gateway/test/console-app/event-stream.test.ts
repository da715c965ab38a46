/**
 * The console's stream reader against a scripted fetch: events handed over as they arrive, a
 * reconnect after the stream ends that resumes with Last-Event-ID (no gap, no duplicate), backoff
 * between attempts, and a stop on a refusal or an `unauthorized` frame.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../../console/src/api.js';
import { followEvents, type StreamState } from '../../console/src/event-stream.js';
import type { EventJson } from '../../console/src/model.js';

const frame = (id: string, eventId: string) => `id: ${id}\nevent: event.created\ndata: ${JSON.stringify({ id: eventId })}\n\n`;
const streamOf = (...chunks: string[]) => new Response(new Blob(chunks).stream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });

/** fetch answering each call with the next scripted response, recording the requests. */
function scriptedFetch(answers: Array<() => Response>) {
  const calls: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch = vi.fn(async (url: string, init: { headers: Record<string, string> }) => {
    calls.push({ url, headers: init.headers });
    const next = answers.shift();
    if (!next) return new Promise<Response>(() => {});
    return next();
  });
  return { fetch, calls };
}

describe('console event stream', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('resumes with Last-Event-ID after the stream ends, after a backoff, and stops on an unauthorized frame', async () => {
    const { fetch, calls } = scriptedFetch([
      () => streamOf(': connected\n\n', frame('c1', 'e1'), frame('c2', 'e2').slice(0, 9), frame('c2', 'e2').slice(9)),
      () => {
        throw new TypeError('network error');
      },
      () => streamOf(frame('c3', 'e3'), 'event: unauthorized\ndata: {"error":"token revoked"}\n\n'),
    ]);
    vi.stubGlobal('fetch', fetch);
    const events: string[] = [];
    const states: StreamState[] = [];
    followEvents({ api: createApi('/api/platform/dh', 'admin-secret'), filters: { domain: 'a.b', device_name: undefined }, onEvents: (e: EventJson[]) => events.push(...e.map((x) => x.id)), onState: (s) => states.push(s) });

    await vi.waitFor(() => expect(states.at(-1)).toEqual({ kind: 'reconnecting', inSeconds: 1 }));
    expect(events).toEqual(['e1', 'e2']);
    expect(calls[0]).toEqual({ url: '/api/platform/dh/dynamic-events/stream?domain=a.b&kinds=event.created', headers: { Authorization: 'Bearer admin-secret', Accept: 'text/event-stream' } });
    await vi.advanceTimersByTimeAsync(1000);
    // The failed attempt doubles the wait.
    await vi.waitFor(() => expect(states.at(-1)).toEqual({ kind: 'reconnecting', inSeconds: 2 }));
    expect(calls[1]?.headers['Last-Event-ID']).toBe('c2');
    await vi.advanceTimersByTimeAsync(2000);
    await vi.waitFor(() => expect(states.at(-1)).toEqual({ kind: 'stopped', reason: 'token revoked' }));
    expect(calls[2]?.headers['Last-Event-ID']).toBe('c2');
    expect(events).toEqual(['e1', 'e2', 'e3']);
    expect(calls).toHaveLength(3);
  });

  it('stops on a refusal with the API message, and stops reading when told to', async () => {
    const refused = scriptedFetch([() => new Response(JSON.stringify({ error: 'after is too old' }), { status: 400 })]);
    vi.stubGlobal('fetch', refused.fetch);
    const states: StreamState[] = [];
    followEvents({ api: createApi('', 'x'), filters: {}, onEvents: () => {}, onState: (s) => states.push(s) });
    await vi.waitFor(() => expect(states.at(-1)).toEqual({ kind: 'stopped', reason: 'after is too old' }));

    const ended = scriptedFetch([() => streamOf(frame('c1', 'e1'))]);
    vi.stubGlobal('fetch', ended.fetch);
    const stop = followEvents({ api: createApi('', 'x'), filters: {}, onEvents: () => {}, onState: () => {} });
    await vi.waitFor(() => expect(ended.calls).toHaveLength(1));
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ended.calls).toHaveLength(1);
  });
});
