/** What one request to a receiver came to. */
export interface AttemptResult {
  /** Undefined: no answer (timeout, connection error, refused address). */
  statusCode: number | undefined;
  /** Empty on success. */
  error: string;
  /** Seconds a 429 or 503 asked to wait (Retry-After). */
  retryAfterSeconds: number | undefined;
  durationMs: number;
  /** At most 1 KiB of the answer, as text. */
  responseBody: string;
}

/** Where a delivery goes after an attempt. */
type Next =
  | { status: 'succeeded' }
  | { status: 'failed' }
  /** `disables`: the reason the answer disables its webhook with (410 Gone); the delivery waits for it. */
  | { status: 'pending'; atMs: number; disables?: string };

/** ±20 % around a step, so receivers coming back are not hit by every retry at once. */
const JITTER = 0.2;

/**
 * The delivery's next state. 2xx is success; 410 disables the webhook and keeps the delivery pending
 * for when it is enabled again; anything else (3xx included: redirects are not followed) is retried
 * after the schedule's step for this attempt, with jitter, at least as long as a 429 or 503 asked in
 * Retry-After (capped by the longest step); past the last step the delivery has failed.
 */
export function nextAfter(result: AttemptResult, attemptsBefore: number, scheduleSeconds: readonly number[], nowMs: number, random: () => number = Math.random): Next {
  const code = result.statusCode;
  if (code !== undefined && code >= 200 && code < 300) return { status: 'succeeded' };
  if (code === 410) return { status: 'pending', atMs: nowMs, disables: 'the endpoint answered 410 Gone' };
  const step = scheduleSeconds[attemptsBefore];
  if (step === undefined) return { status: 'failed' };
  let delaySeconds = step * (1 - JITTER + 2 * JITTER * random());
  if ((code === 429 || code === 503) && result.retryAfterSeconds !== undefined) {
    delaySeconds = Math.max(delaySeconds, Math.min(result.retryAfterSeconds, Math.max(...scheduleSeconds)));
  }
  return { status: 'pending', atMs: nowMs + Math.round(delaySeconds * 1000) };
}

/** Seconds of a Retry-After value: delta-seconds or an HTTP date; undefined when it is neither. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}
