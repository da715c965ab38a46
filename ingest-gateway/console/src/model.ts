/** The API's JSON shapes the console reads (README "API"; ingest-gateway/openapi.yaml). */

import type { PolicyJson } from '@dynamic-events/proto';
import type { InstanceAccess } from '../../src/tokens/instance-access.js';

// Shapes the proto package and the gateway already own, taken as types only (nothing of them is bundled).
export type { InstanceAccess, PolicyJson };
export type { EventJson } from '../../src/api/event.js';

/** The instance's token setting and the access it leaves senders (GET|PATCH …/settings/dynamic-events). */
export interface AuthSettingsJson {
  require_token: boolean;
  access: InstanceAccess;
}

export interface TokenJson {
  id: string;
  name: string;
  prefix: string;
  policy: PolicyJson;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  read_only: boolean;
}

export interface DeviceJson {
  device_name: string;
  kind: string;
  created_at: string;
  created_by_token_id: string | null;
  /** The time of its latest event (at most a minute behind it); null before its first is counted. */
  last_seen_at: string | null;
}

export interface ObjectJson {
  id: string;
  object_id: string;
  object_domain: string;
  object_name: string;
  object_type: string;
  device_name: string;
  created_at: string;
  created_by_token_id: string | null;
  /** As a device's. */
  last_seen_at: string | null;
}

export interface EventTypeJson {
  domain: string;
  event_type: string;
  display_name: string;
  display_description: string;
  created_at: string;
  created_by_token_id: string | null;
}

/** Which changes a webhook receives; an absent list restricts nothing, an empty one matches nothing. */
export interface WebhookFilterJson {
  domains?: string[];
  event_types?: string[];
  device_names?: string[];
  kinds?: string[];
}

export interface WebhookJson {
  id: string;
  url: string;
  description: string;
  filter: WebhookFilterJson;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A delivery as the log lists it; its id is the webhook-id header of its attempts. */
export interface DeliveryJson {
  id: string;
  event_id: string | null;
  type: string;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  succeeded_at: string | null;
}

/** One request to the receiver; `response_body` is the receiver's text (untrusted, at most 1 KiB). */
export interface AttemptJson {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string;
}
