import { parseRfc3339, TIMESTAMP_RANGE_TEXT, type Timestamp } from '@dynamic-events/proto';
import { UsageError } from './usage-error.js';

/** The filters of `events list` and `events watch`, as the HTTP API's list parameters name them. */
export interface EventFilterFlags {
  deviceName?: string;
  domain?: string;
  eventType?: string;
}

/** The events commands: the registry's RegistryService read API (ListEvents, GetEvent, Watch). */
export type EventCommand =
  | { kind: 'events list'; filter: EventFilterFlags; since?: Timestamp; until?: Timestamp; limit?: number; pageToken?: string }
  | { kind: 'events get'; id: string }
  | { kind: 'events watch'; filter: EventFilterFlags; after?: string; forSeconds?: number };

/** Whether a parsed command is one of the events commands. */
export function isEventCommand<C extends { kind: string }>(command: C): command is Extract<C, EventCommand> {
  return command.kind.startsWith('events ');
}

export const EVENT_USAGE = `  events list [--device-name NAME] [--domain DOMAIN] [--event-type TYPE] [--since RFC3339] [--until RFC3339]
              [--limit N] [--page-token TOKEN]     newest first
  events get ID
  events watch [--device-name NAME] [--domain DOMAIN] [--event-type TYPE] [--after CURSOR] [--for SECONDS]
                                                  one line per event as it commits: {"cursor", "event"}`;

export const EVENT_OPTIONS = {
  'device-name': { type: 'string' },
  domain: { type: 'string' },
  'event-type': { type: 'string' },
  until: { type: 'string' },
  after: { type: 'string' },
  for: { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof EVENT_OPTIONS | 'since' | 'limit' | 'page-token', string>>;

const FILTERS = ['device-name', 'domain', 'event-type'];

/** Flags of each events command, and its positionals (ids) in words. */
export const EVENT_SHAPES: Record<string, { flags: string[]; ids: number; idWords: string }> = {
  'events list': { flags: [...FILTERS, 'since', 'until', 'limit', 'page-token'], ids: 0, idWords: 'no argument' },
  'events get': { flags: [], ids: 1, idWords: 'one event id' },
  'events watch': { flags: [...FILTERS, 'after', 'for'], ids: 0, idWords: 'no argument' },
};

/** The command of an events command line whose shape (flags, ids) was checked. */
export function toEventCommand(kind: string, ids: string[], values: Values): EventCommand {
  switch (kind) {
    case 'events get':
      return { kind, id: ids[0] ?? '' };
    case 'events watch': {
      const forSeconds = values.for === undefined ? undefined : /^\d{1,6}$/.test(values.for) && Number(values.for) > 0 ? Number(values.for) : NaN;
      if (Number.isNaN(forSeconds)) throw new UsageError('--for must be a whole number of seconds, at least 1');
      return { kind, filter: filterOf(values), ...(values.after !== undefined ? { after: values.after } : {}), ...(forSeconds !== undefined ? { forSeconds } : {}) };
    }
    default: {
      const limit = values.limit === undefined ? undefined : /^\d{1,4}$/.test(values.limit) ? Number(values.limit) : NaN;
      if (limit !== undefined && !(limit >= 1 && limit <= 1000)) throw new UsageError('--limit must be an integer between 1 and 1000');
      const since = timeOf('since', values.since);
      const until = timeOf('until', values.until);
      return {
        kind: 'events list',
        filter: filterOf(values),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(values['page-token'] !== undefined ? { pageToken: values['page-token'] } : {}),
      };
    }
  }
}

function filterOf(values: Values): EventFilterFlags {
  return {
    ...(values['device-name'] !== undefined ? { deviceName: values['device-name'] } : {}),
    ...(values.domain !== undefined ? { domain: values.domain } : {}),
    ...(values['event-type'] !== undefined ? { eventType: values['event-type'] } : {}),
  };
}

function timeOf(flag: string, value: string | undefined): Timestamp | undefined {
  if (value === undefined) return undefined;
  const time = parseRfc3339(value);
  if (!time) throw new UsageError(`--${flag} must be an RFC 3339 date-time from ${TIMESTAMP_RANGE_TEXT}, e.g. 2026-11-21T08:00:00Z`);
  return time;
}
