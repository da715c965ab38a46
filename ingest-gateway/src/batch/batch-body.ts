import { invalidArgument } from '@dynamic-events/proto';

/** The `events` of a batch body: an array of 1 to `maxEvents` values (each judged on its own later). */
export function batchEventsOf(body: Record<string, unknown>, maxEvents: number): unknown[] {
  if (!Object.hasOwn(body, 'events')) throw invalidArgument('events', 'required', 'events is required');
  const events = body.events;
  if (!Array.isArray(events)) throw invalidArgument('events', 'type', 'events must be an array of events');
  if (events.length === 0) throw invalidArgument('events', 'min-items', 'events must contain at least 1 event');
  if (events.length > maxEvents) throw invalidArgument('events', 'max-items', `events must contain at most ${maxEvents} events (got ${events.length})`);
  return events;
}

/** One element of `events` as the single POST's body: a JSON object, else its own 400. */
export function eventBodyOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidArgument('body', 'not-object', 'body must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * The batch's JSON values at most, counted before parsing: a single event's limit per event the
 * batch may hold, so the largest valid events fit and a body of junk costs no more than that.
 */
export function batchMaxValues(maxEvents: number, eventMaxValues: number): number {
  return maxEvents * (eventMaxValues + 1);
}
