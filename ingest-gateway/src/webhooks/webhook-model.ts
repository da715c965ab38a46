/**
 * The gateway's plain webhook types (protobuf stops in clients/webhooks.ts). Timestamps are RFC 3339
 * UTC strings with nine fractional digits, as formatTimestamp writes them.
 */

/** Which changes a webhook receives; an undefined list means no restriction (an empty one: nothing). */
export interface WebhookFilter {
  domains?: string[];
  eventTypes?: string[];
  deviceNames?: string[];
  kinds?: string[];
}

/** A webhook as the registry lists it: never its secret. */
export interface WebhookRecord {
  id: string;
  url: string;
  description: string;
  filter: WebhookFilter;
  enabled: boolean;
  /** Null while enabled. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A new webhook; the registry checks every value (url safety, patterns, kinds, lengths). */
export interface WebhookDraft {
  url: string;
  description?: string;
  filter?: WebhookFilter;
  enabled?: boolean;
}

/** A change of a webhook: only the fields given change; a filter replaces the whole filter. */
export type WebhookChange = Partial<WebhookDraft>;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One request to the receiver. */
export interface DeliveryAttempt {
  at: string;
  /** Null: no answer (timeout, connection error, refused address). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string;
}

/** One change sent to one webhook; its id is the webhook-id header of every attempt. */
export interface DeliveryRecord {
  id: string;
  eventId: string | null;
  type: string;
  status: DeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  succeededAt: string | null;
  /** Only in one delivery's read, oldest first. */
  attempts: DeliveryAttempt[];
}

/** The delivery log's filters and page. */
export interface DeliveryQuery {
  status?: DeliveryStatus;
  eventId?: string;
  limit: number;
  pageToken: string;
}
