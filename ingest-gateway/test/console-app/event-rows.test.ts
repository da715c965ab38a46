/** The Events table's rows: live on top, history below, no duplicate, at most MAX_ROWS. */
import { describe, expect, it } from 'vitest';
import { addLive, addOlder, earlier, MAX_ROWS, type EventRows } from '../../console/src/event-rows.js';
import type { EventJson } from '../../console/src/model.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
const event = (n: number): EventJson => ({
  id: `e${n}`,
  domain: 'd',
  event_type: 't',
  rels: [],
  images: [],
  video_clips: [],
  event_additional_properties: {},
  created_at: at(n),
  updated_at: at(n),
  token_id: null,
  occurred_at: null,
});
const empty: EventRows = { rows: [], older: { until: undefined, pageToken: undefined, done: false } };
const ids = (state: EventRows) => state.rows.map((row) => row.id);

describe('console event rows', () => {
  it('puts live events on top, newest first, and drops ones already shown', () => {
    const first = addOlder(empty, [event(2), event(1)], 'p2');
    const live = addLive(first, [event(2), event(3), event(4)]);
    expect(ids(live)).toEqual(['e4', 'e3', 'e2', 'e1']);
    expect(live.older).toEqual({ until: undefined, pageToken: 'p2', done: false });
  });

  it('keeps MAX_ROWS when live events overflow, continuing history from the oldest row kept', () => {
    const page = Array.from({ length: MAX_ROWS }, (_, n) => event(MAX_ROWS - n));
    const full = addOlder(empty, page, 'p2');
    const live = addLive(full, [event(MAX_ROWS + 1), event(MAX_ROWS + 2)]);
    expect(live.rows).toHaveLength(MAX_ROWS);
    expect(live.rows[0]?.id).toBe(`e${MAX_ROWS + 2}`);
    expect(live.rows.at(-1)?.id).toBe('e3');
    // until is exclusive: just after the oldest row kept, with a fresh page token.
    expect(live.older).toEqual({ until: new Date(Date.parse(at(3)) + 1).toISOString(), pageToken: undefined, done: false });
  });

  it('appends older pages below, drops the newest rows past MAX_ROWS, and stops at the last page', () => {
    const first = addOlder(empty, [event(3)], 'p2');
    const older = addOlder(first, Array.from({ length: MAX_ROWS }, (_, n) => event(2 - n)), null);
    expect(older.rows).toHaveLength(MAX_ROWS);
    expect(older.rows[0]?.id).toBe('e2');
    expect(older.older.done).toBe(true);
  });

  it('takes the earlier of two optional instants', () => {
    expect(earlier(undefined, at(1))).toBe(at(1));
    expect(earlier(at(2), undefined)).toBe(at(2));
    expect(earlier(at(2), at(1))).toBe(at(1));
  });
});
