import { AppError } from '@dynamic-events/proto';
import { collectAfterBursts } from '@dynamic-events/proto/runtime';
import type { Watch } from './watch.js';

/** Watch calls at once from which, once most have ended, their garbage is collected (memory-return.ts). */
const BURST_WATCHES = 100;

/** A refused watcher may retry once another stream ended, here or on another replica. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The one owner of how many Watch streams this registry serves at once (MAX_WATCHES). Each holds
 * about 30 KB for a filter of its own; the gateways cap their own streams, but every gateway
 * replica opens its own, so only the registry can keep itself under its memory limit. Beyond the
 * cap a Watch ends at once with UNAVAILABLE, before anything is read for it; its place comes back
 * when it ends, however it ends. Once a burst of them ended, their garbage is collected.
 */
export function capWatches(watch: Watch, maxWatches: number): Watch {
  let open = 0;
  const settled = collectAfterBursts(BURST_WATCHES);
  return async function* capped(request, signal) {
    if (open >= maxWatches) {
      throw new AppError('UNAVAILABLE', `this registry serves ${maxWatches} Watch streams, the most it may: retry later`, { retryAfterSeconds: RETRY_AFTER_SECONDS, rule: 'watches' });
    }
    open++;
    settled(open);
    try {
      yield* watch(request, signal);
    } finally {
      open--;
      settled(open);
    }
  };
}
