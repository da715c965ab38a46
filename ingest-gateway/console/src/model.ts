/** The API's JSON shapes the console reads (README "API"; ingest-gateway/openapi.yaml). */

export interface PolicyJson {
  may_create?: string[];
  domains?: string[];
  max_devices?: number;
  max_objects?: number;
  rate?: { per_second: number; burst: number };
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

export interface EventJson {
  id: string;
  domain: string;
  event_type: string;
  rels: string[];
  images: string[];
  video_clips: string[];
  event_additional_properties: Record<string, string>;
  created_at: string;
  updated_at: string;
  token_id: string | null;
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
