import type { Metadata } from '@grpc/grpc-js';

/** Metadata key that carries the HTTP request id from the gateway to registry and media. */
export const REQUEST_ID_KEY = 'x-request-id';

/** What a handler gets besides its request: who is asking and whether they still are. */
export interface CallContext {
  /** The caller's request id (from `x-request-id` metadata) or a fresh one. */
  requestId: string;
  metadata: Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
}

/** Reads the request id from metadata; ids are capped so a caller cannot bloat every log line. */
export function requestIdFrom(metadata: Metadata, fallback: () => string): string {
  const value = metadata.get(REQUEST_ID_KEY)[0];
  if (typeof value === 'string' && value.length > 0 && value.length <= 128) return value;
  return fallback();
}
