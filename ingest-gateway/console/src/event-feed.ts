import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Api } from './api.js';
import { followEvents, type StreamState } from './event-stream.js';
import { addLive, addOlder, earlier, type EventRows, type OlderCursor } from './event-rows.js';
import type { EventJson } from './model.js';

/** The Events screen's filters, as the API names them (since/until RFC 3339). */
export type EventFilters = Partial<Record<'device_name' | 'object' | 'domain' | 'event_type' | 'token_id' | 'since' | 'until', string>>;

/** Live rows are rendered at most this often, however fast they arrive. */
const RENDER_EVERY_MS = 250;
const PAGE_SIZE = '50';

export type FeedState = StreamState | { kind: 'off'; reason: string };

/**
 * The Events table's rows: the first page of history, then live events from the stream (when
 * following) and older pages on demand. The stream is opened before the first page is asked for,
 * so nothing commits unseen between them; duplicates are dropped by id. Live events are collected
 * and rendered together, at most once per RENDER_EVERY_MS.
 */
export function useEventFeed(api: Api, filters: EventFilters, follow: boolean) {
  const [state, setState] = useState<EventRows>({ rows: [], older: { until: undefined, pageToken: undefined, done: false } });
  const [stream, setStream] = useState<FeedState>({ kind: 'off', reason: 'Live updates are off.' });
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const pending = useRef<EventJson[]>([]);
  const filterKey = JSON.stringify(filters);
  // Answers for other filters than the current ones are dropped: each filter change is a generation.
  const generation = useRef(0);

  useEffect(() => {
    generation.current += 1;
    setState({ rows: [], older: { until: undefined, pageToken: undefined, done: false } });
    setError(undefined);
  }, [filterKey]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const events = pending.current;
      pending.current = [];
      setState((before) => addLive(before, events));
    };
    const { since, until, ...streamFilters } = filters;
    let stop = () => {};
    if (!follow) setStream({ kind: 'off', reason: 'Live updates are off.' });
    else if (until !== undefined) setStream({ kind: 'off', reason: 'Live updates are off while Until is set.' });
    else {
      stop = followEvents({
        api,
        filters: streamFilters,
        onState: setStream,
        onEvents: (events) => {
          // The stream has no `since`: events before it (a Since in the future) are left out here.
          pending.current.push(...(since === undefined ? events : events.filter((e) => Date.parse(e.created_at) >= Date.parse(since))));
          timer ??= setTimeout(flush, RENDER_EVERY_MS);
        },
      });
    }
    return () => {
      stop();
      if (timer !== undefined) clearTimeout(timer);
      pending.current = [];
    };
  }, [api, filterKey, follow]);

  const loadOlder = useCallback(
    (from: EventRows) => {
      setLoading(true);
      const asked = generation.current;
      const query = { ...filters, until: earlier(filters.until, from.older.until), page_token: from.older.pageToken, limit: PAGE_SIZE };
      api.list<EventJson>('/dynamic-events', 'events', query).then(
        (page) => {
          if (asked !== generation.current) return;
          setState((before) => (sameCursor(before.older, from.older) ? addOlder(before, page.items, page.next) : before));
          setError(undefined);
          setLoading(false);
        },
        (err: unknown) => {
          if (asked !== generation.current) return;
          setError(err instanceof ApiError ? err.message : String(err));
          setLoading(false);
        },
      );
    },
    [api, filterKey],
  );

  // The first page, once per filter: the state's cursor is fresh after the reset above.
  useEffect(() => loadOlder({ rows: [], older: { until: undefined, pageToken: undefined, done: false } }), [loadOlder]);

  return { rows: state.rows, stream, error, loading, hasOlder: !state.older.done, older: () => loadOlder(state) };
}

/** Whether a page asked for at cursor `b` still continues the rows (no live trim moved it meanwhile). */
function sameCursor(a: OlderCursor, b: OlderCursor): boolean {
  return a.until === b.until && a.pageToken === b.pageToken && a.done === b.done;
}
