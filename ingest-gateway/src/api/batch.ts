import type { EventJson } from './event.js';

/** One event's result in a batch answer: its event (200, committed) or its refusal, naming field and rule as a refused call does. */
export type BatchResultJson = { status: 200; event: EventJson } | { status: number; error: string; field?: string; rule?: string };

/** The answer of POST …/dynamic-events/batch: one result per event, in order, and the counts. */
export interface BatchJson {
  results: BatchResultJson[];
  recorded: number;
  refused: number;
}

/** The answer from the results, in the events' order. */
export function presentBatch(results: BatchResultJson[]): BatchJson {
  let recorded = 0;
  for (const result of results) if (result.status === 200) recorded++;
  return { results, recorded, refused: results.length - recorded };
}
