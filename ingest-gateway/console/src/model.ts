/** The API's JSON shapes the console reads (README "API"; ingest-gateway/openapi.yaml). */

import type { PolicyJson } from '@dynamic-events/proto';

// Shapes the proto package and the gateway already own, taken as types only (nothing of them is bundled).
export type { PolicyJson };
export type { EventJson } from '../../src/api/event.js';

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
}

export interface EventTypeJson {
  domain: string;
  event_type: string;
  display_name: string;
  display_description: string;
  created_at: string;
  created_by_token_id: string | null;
}
