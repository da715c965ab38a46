import type { IncomingMessage } from 'node:http';
import type { Router } from '@koa/router';
import { AppError, LIMITS } from '@dynamic-events/proto';
import type { Logger } from '@dynamic-events/proto/runtime';
import { presentBatch, type BatchJson, type BatchResultJson } from '../../api/batch.js';
import { batchEventsOf, batchMaxValues, eventBodyOf } from '../../batch/batch-body.js';
import { createBatchIdentities } from '../../batch/batch-identities.js';
import { batchKeys } from '../../batch/batch-keys.js';
import type { RegistryClient } from '../../clients/registry.js';
import { inBatch } from '../../batch/event-errors.js';
import { readIdempotencyKey } from '../../ingest/idempotency-key.js';
import { readJsonBody } from '../../ingest/json-body.js';
import type { Metrics } from '../../metrics.js';
import type { RateGrant, RateLimiter } from '../../tokens/rate-limit.js';
import type { GatewayState } from '../context.js';
import { createFailureAnswer } from '../failure-answer.js';
import { callOf, type DynamicEventPost } from './dynamic-events.js';

/** What the batch needs beside the single POST's steps, budget and authenticator. */
interface BatchPostDeps {
  /** BATCH_MAX_EVENTS. */
  maxEvents: number;
  maxBodyBytes: number;
  maxImageBytes: number;
  limitRate?: RateLimiter;
  /** FindRequestKeys, for a batch's Idempotency-Key. */
  registry: Pick<RegistryClient, 'findRequestKeys'>;
  logger: Logger;
  metrics: Metrics;
}

/** An answer and the headers it carries (Retry-After when an event met a rate or an overload). */
interface BatchAnswer {
  body: BatchJson;
  headers: Record<string, string>;
}

const OUTAGE_CODES = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED']);

/**
 * POST {base}/dynamic-events/batch: `{"events": [...]}`, each event exactly the single POST's body.
 * auth → body budget → body (size limit, Content-Encoding, UTF-8, parsed once) → `events` (1 to
 * BATCH_MAX_EVENTS) → Idempotency-Key (batch-keys.ts) → the token's rate, one unit per event → each event through
 * the single POST's steps (event-steps.ts, with `events[i].` in its messages), all at once: they
 * leave for the registry together in RecordEvents batches. A refused event never fails the others
 * and stores nothing; the call itself is refused only for what concerns all of it, or when nothing
 * was recorded because the registry or media was out (503 as for the single POST).
 */
export function createBatchPost(post: DynamicEventPost, deps: BatchPostDeps): (req: IncomingMessage, requestId: string) => Promise<BatchAnswer> {
  const answerFailure = createFailureAnswer(deps);
  const bodyOptions = {
    maxBodyBytes: deps.maxBodyBytes,
    // Two levels more than one event's body: the batch object and its array.
    maxDepth: LIMITS.jsonMaxDepth + 2,
    maxValues: batchMaxValues(deps.maxEvents, LIMITS.jsonMaxValues),
    maxImageBytes: deps.maxImageBytes,
    liftImage: false,
  };
  const take = (token: Parameters<RateLimiter>[0], count: number): Promise<RateGrant> | RateGrant =>
    deps.limitRate ? deps.limitRate.take(token, count) : { granted: count, refusal: undefined };

  return async (req, requestId) => {
    const token = post.authenticate(req);
    const reserved = post.budget.reserve(req);
    try {
      const body = await readJsonBody(req, bodyOptions);
      const events = batchEventsOf(body.body, deps.maxEvents);
      const idempotency = readIdempotencyKey(req, body.bytes);
      const call = callOf(req, requestId);
      const keys = idempotency && (await batchKeys(deps.registry, idempotency, events.length, token?.id, call));
      const { granted, refusal } = await take(token, events.length);
      // No unit left at all concerns the whole call: a 429 as for the single POST, nothing judged.
      if (granted === 0 && refusal) throw refusal;
      const claimIdentity = createBatchIdentities();
      const headers: Record<string, string> = {};
      const failed = (err: unknown, index: number): BatchResultJson => {
        const answer = answerFailure(inBatch(err, index), { requestId, method: 'POST', path: post.path });
        Object.assign(headers, answer.headers);
        return { status: answer.status, ...answer.body };
      };
      const outcomes = events.map((value, index) => {
        if (index >= granted) return { error: refusal };
        // Each event starts its steps in batch order (validation and identity claims are synchronous).
        const recorded = Promise.resolve()
          .then(() => post.steps.record(eventBodyOf(value), undefined, { token, idempotency: keys?.[index], call, claimIdentity }))
          .then((event) => ({ event }), (error: unknown) => ({ error }));
        return recorded;
      });
      const settled = await Promise.all(outcomes);
      const outage = settled.find((s) => 'error' in s && s.error instanceof AppError && OUTAGE_CODES.has(s.error.code));
      if (outage && settled.every((s) => !('event' in s))) throw (outage as { error: unknown }).error;
      const results = settled.map((s, index): BatchResultJson => ('event' in s ? { status: 200, event: s.event } : failed(s.error, index)));
      return { body: presentBatch(results), headers };
    } finally {
      post.budget.release(reserved);
    }
  };
}

/** The batch as a Koa route, beside the single POST. */
export function batchRoutes(router: Router<GatewayState>, post: DynamicEventPost, run: ReturnType<typeof createBatchPost>): void {
  router.post(`${post.path}/batch`, async (ctx) => {
    const { body, headers } = await run(ctx.req, ctx.state.requestId);
    ctx.set(headers);
    ctx.body = body;
  });
}
