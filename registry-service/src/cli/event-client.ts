import { callStream, callUnary, createGrpcClient } from '@dynamic-events/proto/runtime';
import { formatTimestamp, presentEvent, registry, type EventJson, type Timestamp } from '@dynamic-events/proto';
import type { EventCommand, EventFilterFlags } from './event-args.js';

/** An operator waits this long at most for a list or a get; the registry answers them in milliseconds. */
const DEADLINE_MS = 10_000;

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const time = (ts: Timestamp | undefined): string => (ts ? formatTimestamp(ts) : '');

/** An event in the HTTP API's shape (GET …/dynamic-events/{id}). */
function eventJson(event: registry.Event | undefined): EventJson | null {
  if (!event) return null;
  return presentEvent({
    ...event,
    properties: event.additionalProperties,
    createdAt: time(event.createdAt),
    updatedAt: time(event.updatedAt),
    tokenId: event.tokenId === '' ? null : event.tokenId,
    occurredAt: event.occurredAt ? formatTimestamp(event.occurredAt) : null,
  });
}

function toProtoFilter(filter: EventFilterFlags, since?: Timestamp, until?: Timestamp): registry.EventFilter {
  return {
    deviceName: filter.deviceName ?? '',
    object: '',
    domain: filter.domain ?? '',
    eventType: filter.eventType ?? '',
    since,
    until,
    tokenId: '',
    domainPatterns: undefined,
    occurredSince: undefined,
    occurredUntil: undefined,
  };
}

/**
 * Runs one events command against RegistryService at `address` (presenting `credential`). list and
 * get resolve with the JSON to print; watch writes one line per event through `line` as it commits
 * (`{"cursor", "event"}`: the cursor resumes after it with --after), until --for seconds have
 * passed or the process is stopped, and resolves with undefined.
 */
export async function runEventCommand(address: string, command: EventCommand, credential: string | undefined, line: (text: string) => Promise<void>): Promise<unknown> {
  const client = createGrpcClient(registry.RegistryServiceClient, address);
  try {
    switch (command.kind) {
      case 'events list': {
        const request = {
          filter: toProtoFilter(command.filter, command.since, command.until),
          pageSize: command.limit ?? 0,
          pageToken: command.pageToken ?? '',
          order: registry.SortOrder.SORT_ORDER_UNSPECIFIED,
          orderBy: registry.EventOrderBy.EVENT_ORDER_BY_UNSPECIFIED,
        };
        const response = await callUnary(client.listEvents.bind(client), request, { deadlineMs: DEADLINE_MS, credential });
        return { events: response.events.map(eventJson), next_page_token: response.nextPageToken || null };
      }
      case 'events get':
        return eventJson((await callUnary(client.getEvent.bind(client), { id: command.id }, { deadlineMs: DEADLINE_MS, credential })).event);
      case 'events watch': {
        const signal = command.forSeconds === undefined ? undefined : AbortSignal.timeout(command.forSeconds * 1000);
        const request = { filter: toProtoFilter(command.filter), kinds: [registry.WatchKind.WATCH_KIND_EVENT_CREATED], afterCursor: command.after ?? '' };
        // A deadline past a timer's range (2^31 - 1 ms) would fire at once: without --for, about 24 days.
        const deadlineMs = command.forSeconds === undefined ? MAX_TIMER_MS : command.forSeconds * 1000 + DEADLINE_MS;
        const settings = { deadlineMs, credential, ...(signal ? { signal } : {}) };
        for await (const message of callStream(client.watch.bind(client), request, settings)) {
          for (const change of message.changes) if (change.event) await line(`${JSON.stringify({ cursor: change.cursor, event: eventJson(change.event) })}\n`);
        }
        return undefined;
      }
    }
  } finally {
    client.close();
  }
}
