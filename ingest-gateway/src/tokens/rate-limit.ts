import { AppError, quoteName, rateProblem } from '@dynamic-events/proto';
import { type Logger } from '@dynamic-events/proto/runtime';
import { Redis } from 'ioredis';
import type { Metrics } from '../metrics.js';
import type { TokenCredential, TokenRate } from './token-model.js';

/** Checks a request against its token's rate; resolves, or rejects with 429. Undefined: nothing to wait for. */
export interface RateLimiter {
  (token: TokenCredential | undefined): Promise<void> | undefined;
  /** Up to `count` units at once (a batch takes one per event): how many were granted, and the 429 of the others. */
  take(token: TokenCredential | undefined, count: number): Promise<RateGrant>;
}

/** What a batch was granted: the first `granted` events go on; `refusal` (429, with Retry-After) answers the rest. */
export interface RateGrant {
  granted: number;
  refusal: AppError | undefined;
}

/**
 * GCRA (the generic cell rate algorithm, as in ATM networks and redis-cell): one number per token,
 * its theoretical arrival time (TAT). Each event moves it on by 1/per_second; an event is allowed
 * while the TAT stays within `burst` intervals of now. Equivalent to a token bucket of `burst`
 * refilled at `per_second`, without a refill timer. In Redis the step is one script over the
 * server's own clock, so every gateway replica shares one count and one clock: the limit holds
 * across replicas exactly (each request is one atomic step), only a client's retry timing depends
 * on which replica answers. ARGV[3] events are taken one by one, each by that same step, as long as
 * they are allowed: answers [events allowed, ms until the next one is allowed (0 when all were)].
 */
const GCRA_SCRIPT = `
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
-- Fail closed: arithmetic this step cannot do (NaN, an infinite or non-positive interval, a burst
-- below 1, an expiry past what PX takes) answers -1, which the gateway refuses; never a write.
if not interval or not burst or interval ~= interval or burst ~= burst or interval <= 0 or burst < 1
  or interval * burst >= 9007199254740991 then return {-1, 0} end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local granted = 0
while granted < count and tat + interval - burst * interval <= now do
  tat = tat + interval
  granted = granted + 1
end
if granted > 0 then redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 1000) end
if granted < count then return {granted, math.ceil(tat + interval - burst * interval - now)} end
return {granted, 0}`;

/** Retry-After of a request refused for an unusable rate: nothing changes sooner than an admin acts. */
const UNUSABLE_RETRY_AFTER_SECONDS = 60;

type GcraRedis = Redis & { tokenGcra(key: string, intervalMs: number, burst: number, count: number): Promise<[number, number]> };

/**
 * The same step in this process (no Redis, or Redis unreachable): exact for one gateway. Takes up
 * to `count` events; answers how many were allowed and the wait in ms for the next; Infinity when
 * the arithmetic fails (NaN compares false both ways), so a rate the step cannot compute refuses
 * rather than allows.
 */
function createLocalGcra(): (tokenId: string, rate: TokenRate, now: number, count: number) => [granted: number, waitMs: number] {
  const tats = new Map<string, number>();
  return (tokenId, rate, now, count) => {
    const interval = 1000 / rate.perSecond;
    let tat = Math.max(tats.get(tokenId) ?? 0, now);
    let granted = 0;
    while (granted < count && tat + interval - rate.burst * interval <= now) {
      tat += interval;
      granted++;
    }
    if (granted > 0) tats.set(tokenId, tat);
    // Bounded by the live tokens with a rate; a token idle for a burst's time needs no entry.
    if (tats.size > 10_000) for (const [id, t] of tats) if (t < now) tats.delete(id);
    if (granted === count) return [granted, 0];
    const allowedAt = tat + interval - rate.burst * interval;
    return [granted, Number.isFinite(allowedAt) ? Math.ceil(allowedAt - now) : Number.POSITIVE_INFINITY];
  };
}

/**
 * The `rate` of a token's policy, checked before the body is read: over it, 429 with Retry-After
 * naming the token and the rule, nothing read or stored. Shared through Redis when REDIS_URL is
 * set; per replica otherwise, and while Redis is unreachable (logged, counted): the limit then
 * applies per gateway, so N replicas let up to N times the rate through until Redis is back.
 */
export function createRateLimiter(deps: { redis: Redis | undefined; logger: Logger; metrics: Metrics }): RateLimiter {
  const local = createLocalGcra();
  const redis = deps.redis as GcraRedis | undefined;
  redis?.defineCommand('tokenGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
  let lastWarning = 0;

  /** A rate this gateway cannot apply: every request refused until an admin changes it. */
  const unusable = (token: TokenCredential): AppError => {
    deps.metrics.tokenRateChecks.inc({ result: 'unusable' });
    return new AppError('RESOURCE_EXHAUSTED', `token ${quoteName(token.name)} has a rate this gateway cannot apply: an admin must change its policy.rate`, {
      rule: 'token-rate-unusable',
      retryAfterSeconds: UNUSABLE_RETRY_AFTER_SECONDS,
    });
  };

  const refuse = (token: TokenCredential, rate: TokenRate, waitMs: number): AppError => {
    if (!Number.isFinite(waitMs)) return unusable(token);
    deps.metrics.tokenRateChecks.inc({ result: 'limited' });
    return new AppError('RESOURCE_EXHAUSTED', `token ${quoteName(token.name)} is over its rate of ${rate.perSecond} events per second (burst ${rate.burst})`, {
      rule: 'token-rate',
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    });
  };

  /** Up to `count` events in Redis (its clock, shared by every gateway), else in this process. */
  async function shared(token: TokenCredential, rate: TokenRate, count: number): Promise<[number, number]> {
    try {
      const [allowed, wait] = await redis!.tokenGcra(`dynamic-events:rate:${token.id}`, 1000 / rate.perSecond, rate.burst, count);
      return allowed === -1 ? [0, Number.POSITIVE_INFINITY] : [allowed, wait];
    } catch (err) {
      deps.metrics.tokenRateChecks.inc({ result: 'fallback' });
      if (Date.now() - lastWarning > 10_000) {
        lastWarning = Date.now();
        deps.logger.warn({ err: { message: (err as Error).message } }, 'redis unavailable: token rate limits apply per gateway until it is back');
      }
      return local(token.id, rate, Date.now(), count);
    }
  }

  /** The grant of `count` events, counted (allowed when all were, else limited). */
  const grant = (token: TokenCredential, rate: TokenRate, count: number, [granted, waitMs]: [number, number]): RateGrant => {
    if (granted === count) {
      deps.metrics.tokenRateChecks.inc({ result: 'allowed' });
      return { granted, refusal: undefined };
    }
    return { granted, refusal: refuse(token, rate, waitMs) };
  };

  const take = async (token: TokenCredential | undefined, count: number): Promise<RateGrant> => {
    const rate = token?.policy.rate;
    if (token === undefined || rate === undefined) return { granted: count, refusal: undefined };
    if (rateProblem(rate) !== undefined) return { granted: 0, refusal: unusable(token) };
    return grant(token, rate, count, redis ? await shared(token, rate, count) : local(token.id, rate, Date.now(), count));
  };

  const limit = (token: TokenCredential | undefined): Promise<void> | undefined => {
    const rate = token?.policy.rate;
    if (token === undefined || rate === undefined) return undefined;
    // A stored rate outside the documented range (a row older than a rule, or edited in SQL) is
    // refused before any arithmetic: fail closed, never "allowed".
    if (rateProblem(rate) !== undefined) return Promise.reject(unusable(token));
    if (redis) {
      return shared(token, rate, 1).then((answer) => {
        const { refusal } = grant(token, rate, 1, answer);
        if (refusal) throw refusal;
      });
    }
    const { refusal } = grant(token, rate, 1, local(token.id, rate, Date.now(), 1));
    return refusal ? Promise.reject(refusal) : undefined;
  };
  return Object.assign(limit, { take });
}

/**
 * A client that fails fast instead of queueing while Redis is away (the limiter then checks
 * locally); errors are the limiter's to log, once in a while, so the client's own are dropped.
 */
export function createRedisClient(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, connectTimeout: 1000, commandTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: (times) => Math.min(times * 200, 2000) });
  redis.on('error', () => {});
  return redis;
}
