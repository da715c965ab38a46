/** Polling written once: the launcher, the health waits and the tests all wait this way. */
export interface PollOptions {
  timeoutMs: number;
  /** Pause between checks. */
  intervalMs?: number;
  /** Checked before each attempt: when true, stop waiting quietly (a shutdown began meanwhile). */
  stopped?: () => boolean;
}

/**
 * Calls `check` until it resolves true (a rejection counts as false). Resolves true when it did,
 * false when `stopped()` turned true first; throws `${what}: not within N ms` after `timeoutMs`.
 */
export async function pollUntil(what: string, check: () => Promise<boolean>, options: PollOptions): Promise<boolean> {
  const { timeoutMs, intervalMs = 100, stopped = () => false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopped()) return false;
    if (await check().catch(() => false)) return true;
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
