/** The kinds of change a webhook can receive (the Watch's kinds). */
export const CHANGE_KINDS = ['event.created', 'device.created', 'object.created', 'event_type.created'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Which changes a webhook receives; an absent list means no restriction (kinds: event.created only). */
export interface WebhookFilter {
  domains?: string[];
  eventTypes?: string[];
  deviceNames?: string[];
  kinds: ChangeKind[];
}

/** A webhook as the API shows it: never its secret. Timestamps in microseconds since the epoch. */
export interface WebhookRecord {
  id: string;
  url: string;
  description: string;
  filter: WebhookFilter;
  enabled: boolean;
  /** Empty when enabled. */
  disabledReason: string;
  createdAtMicros: bigint;
  updatedAtMicros: bigint;
}

/** What an admin sends to create a webhook (checked by webhook-rules.ts). */
export interface WebhookDraft {
  url: string;
  description: string;
  filter: Partial<WebhookFilter> | undefined;
  enabled: boolean | undefined;
}

/** A change to a webhook; an absent field stays as it is. */
export interface WebhookChange {
  url?: string;
  description?: string;
  filter?: Partial<WebhookFilter>;
  enabled?: boolean;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  atMicros: bigint;
  /** Undefined: no answer (timeout, connection error, refused address). */
  statusCode: number | undefined;
  durationMs: number;
  error: string;
  responseBody: string;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string | undefined;
  type: ChangeKind;
  status: DeliveryStatus;
  attemptCount: number;
  lastStatusCode: number | undefined;
  lastError: string;
  nextAttemptAtMicros: bigint | undefined;
  createdAtMicros: bigint;
  succeededAtMicros: bigint | undefined;
  /** Only when one delivery is read. */
  attempts?: AttemptRecord[];
}
