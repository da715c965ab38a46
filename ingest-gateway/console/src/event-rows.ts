import type { EventJson } from './model.js';

/** The most rows the Events table keeps: following a busy stream must not grow the page without end. */
export const MAX_ROWS = 500;

/** Where "Older events" continues: the list's page token with the `until` it was handed out for. */
export interface OlderCursor {
  until: string | undefined;
  pageToken: string | undefined;
  done: boolean;
}

export interface EventRows {
  rows: EventJson[];
  older: OlderCursor;
}

/** One millisecond after an RFC 3339 instant (until is exclusive: the instant itself stays in). */
function justAfter(instant: string): string {
  return new Date(Date.parse(instant) + 1).toISOString();
}

/**
 * Live events on top (newest first; the stream delivers them oldest first), duplicates dropped.
 * Over MAX_ROWS the oldest rows go, and "Older events" then continues from the oldest row kept
 * (a new `until` just after it; rows already shown are dropped as duplicates).
 */
export function addLive(state: EventRows, events: EventJson[]): EventRows {
  const seen = new Set(state.rows.map((row) => row.id));
  const fresh = events.filter((event) => !seen.has(event.id) && seen.add(event.id)).reverse();
  if (fresh.length === 0) return state;
  const rows = [...fresh, ...state.rows];
  if (rows.length <= MAX_ROWS) return { ...state, rows };
  const kept = rows.slice(0, MAX_ROWS);
  const oldest = kept[kept.length - 1] as EventJson;
  return { rows: kept, older: { until: justAfter(oldest.created_at), pageToken: undefined, done: false } };
}

/** A page of history below the rows; over MAX_ROWS the newest rows go (the operator is paging back). */
export function addOlder(state: EventRows, page: EventJson[], next: string | null): EventRows {
  const seen = new Set(state.rows.map((row) => row.id));
  const rows = [...state.rows, ...page.filter((event) => !seen.has(event.id))];
  const older = { until: state.older.until, pageToken: next ?? undefined, done: next === null };
  return { rows: rows.length > MAX_ROWS ? rows.slice(rows.length - MAX_ROWS) : rows, older };
}

/** The earlier of two optional RFC 3339 instants (the operator's Until and the cursor's). */
export function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return Date.parse(a) <= Date.parse(b) ? a : b;
}
