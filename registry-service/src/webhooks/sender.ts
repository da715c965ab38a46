import { Agent, request } from 'undici';
import type { AddressGuard } from './address-guard.js';
import { retryAfterSeconds, type AttemptResult } from './attempt-outcome.js';
import { createGuardedConnector } from './guarded-connector.js';

/** Of a receiver's answer, at most this much is read and kept. */
const RESPONSE_BODY_MAX_BYTES = 1024;

interface SenderOptions {
  guard: AddressGuard;
  /** WEBHOOK_TIMEOUT_MS: the whole attempt, connection to the last byte read. */
  timeoutMs: number;
  /** Connections per receiver origin (the per-webhook bound on attempts in flight). */
  connectionsPerOrigin: number;
  userAgent: string;
}

/** POSTs one signed body to a receiver and says what came of it; never rejects. */
export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  /** Waits up to `graceMs` for the requests in flight, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/** A short, safe description of a failure (an undici or socket code, never the receiver's bytes). */
function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (e.code === 'ADDRESS_REFUSED') return `refused: ${e.message ?? 'internal address'}`;
  if (e.code === 'UND_ERR_HEADERS_OVERFLOW') return 'the answer’s headers are too large';
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect within ${timeoutMs} ms`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET') return 'connection reset';
  return e.code ? `request failed (${e.code})` : 'request failed';
}

/** Text of the kept bytes: invalid UTF-8 becomes U+FFFD, NUL too (text columns cannot hold it). */
const decoder = new TextDecoder('utf-8', { fatal: false });
const asText = (bytes: Buffer): string => decoder.decode(bytes).replaceAll('\u0000', '\uFFFD');

export function createSender(options: SenderOptions): Sender {
  const { timeoutMs } = options;
  const agent = new Agent({
    connect: createGuardedConnector(options.guard, { timeoutMs }),
    connections: options.connectionsPerOrigin,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    maxHeaderSize: 16 * 1024,
    keepAliveTimeout: 4000,
  });
  // Each attempt's abort: its timeout, or close() once the grace is over.
  const inFlight = new Set<AbortController>();
  let drained: (() => void) | undefined;
  return {
    async send(url, headers, body) {
      const started = performance.now();
      const abort = new AbortController();
      // A timer of its own, not AbortSignal.timeout in AbortSignal.any, which Node 20 may collect before it fires.
      const timer = setTimeout(() => abort.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
      inFlight.add(abort);
      const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: performance.now() - started });
      try {
        const answer = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': options.userAgent },
          body,
          signal: abort.signal,
        });
        let kept = Buffer.alloc(0);
        for await (const chunk of answer.body as AsyncIterable<Buffer>) {
          kept = Buffer.concat([kept, chunk]).subarray(0, RESPONSE_BODY_MAX_BYTES);
          // Leaving the loop destroys the rest of the answer unread (and its connection).
          if (kept.length >= RESPONSE_BODY_MAX_BYTES) break;
        }
        const code = answer.statusCode;
        const retryAfter = answer.headers['retry-after'];
        return done({
          statusCode: code,
          error: code >= 200 && code < 300 ? '' : code >= 300 && code < 400 ? `answered ${code}: redirects are not followed` : `answered ${code}`,
          retryAfterSeconds: retryAfterSeconds(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now()),
          responseBody: asText(kept),
        });
      } catch (err) {
        const cut = abort.signal.reason instanceof DOMException && abort.signal.reason.name === 'AbortError';
        return done({ statusCode: undefined, error: cut ? 'cut at shutdown' : describe(err, timeoutMs), retryAfterSeconds: undefined, responseBody: '' });
      } finally {
        clearTimeout(timer);
        inFlight.delete(abort);
        if (inFlight.size === 0) drained?.();
      }
    },
    async close(graceMs) {
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, graceMs);
        });
        clearTimeout(timer);
      }
      for (const abort of inFlight) abort.abort(new DOMException('shutdown', 'AbortError'));
      await agent.destroy();
    },
  };
}
