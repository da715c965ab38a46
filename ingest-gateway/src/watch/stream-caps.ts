import { AppError, quoteName } from '@dynamic-events/proto';
import { collectAfterBursts } from '@dynamic-events/proto/runtime';
import { clientAddressOf } from './client-address.js';

/** MAX_STREAMS, MAX_STREAMS_PER_TOKEN and MAX_STREAMS_PER_CLIENT (config.ts): how many SSE streams may be open. */
interface StreamCapLimits {
  maxStreams: number;
  maxStreamsPerToken: number;
  /** 0: no cap per address (behind a proxy every client has the proxy's address). */
  maxStreamsPerClient: number;
}

/** Who opens a stream: its token (none: an open instance, the bootstrap token, the admin credential) and its peer address. */
interface StreamOpener {
  token?: { id: string; name: string };
  remoteAddress: string | undefined;
}

/** Admits a stream or throws (429 or 503); the answer gives its place back, once, whenever it is called again. */
export type StreamCaps = (opener: StreamOpener) => () => void;

/** Streams at once from which, once most have closed, their garbage is collected (memory-return.ts). */
const BURST_STREAMS = 100;

/** A refused stream may retry once one of the others closed; nothing here knows when. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The one owner of how many event streams are open. Each open stream holds about 55 KB in the
 * gateway and, for a filter of its own, about 30 KB in the registry (ingest-gateway/README.md, Limits): the caps keep
 * both under their chart memory limits whatever one client or token opens. Checked before any
 * registry stream is opened; per token and per client address a refusal is the caller's (429), the
 * total the gateway's (503). Addresses count by host, IPv6 by its /64 (client-address.ts). Once a
 * burst of streams closed, their garbage is collected: an idle gateway gives the memory back.
 * `observe` hears the open count after each change (the gateway_event_streams gauge).
 */
export function createStreamCaps(limits: StreamCapLimits, observe: (open: number) => void = () => undefined): StreamCaps {
  const byToken = new Map<string, number>();
  const byClient = new Map<string, number>();
  let total = 0;
  const settled = collectAfterBursts(BURST_STREAMS);
  return (opener) => {
    const client = limits.maxStreamsPerClient > 0 ? clientAddressOf(opener.remoteAddress) : undefined;
    const token = opener.token;
    if (token !== undefined && (byToken.get(token.id) ?? 0) >= limits.maxStreamsPerToken) {
      throw exhausted(`token ${quoteName(token.name)} has ${limits.maxStreamsPerToken} open event streams, the most it may: close one first`, 'streams-per-token');
    }
    if (client !== undefined && (byClient.get(client) ?? 0) >= limits.maxStreamsPerClient) {
      throw exhausted(`this client address has ${limits.maxStreamsPerClient} open event streams, the most it may: close one first`, 'streams-per-client');
    }
    if (total >= limits.maxStreams) {
      throw new AppError('UNAVAILABLE', `the gateway has ${limits.maxStreams} open event streams, the most it serves: retry later`, { retryAfterSeconds: RETRY_AFTER_SECONDS, rule: 'streams' });
    }
    total++;
    settled(total);
    observe(total);
    if (token !== undefined) add(byToken, token.id, 1);
    if (client !== undefined) add(byClient, client, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      total--;
      settled(total);
      observe(total);
      if (token !== undefined) add(byToken, token.id, -1);
      if (client !== undefined) add(byClient, client, -1);
    };
  };
}

function exhausted(message: string, rule: string): AppError {
  return new AppError('RESOURCE_EXHAUSTED', message, { retryAfterSeconds: RETRY_AFTER_SECONDS, rule });
}

/** Adds to a count, deleting it at zero: the maps hold only who has a stream open. */
function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
