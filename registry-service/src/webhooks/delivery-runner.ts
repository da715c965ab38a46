import type pg from 'pg';
import type { Logger } from 'pino';
import { createLimiter, type Limiter, type Release } from '@dynamic-events/proto/runtime';
import { claimDue, type ClaimedDelivery } from '../db/queries/webhook-claims.js';
import { sendingWebhooks } from '../db/queries/webhooks.js';
import type { CommitHorizon } from '../watch/commit-horizon.js';
import type { FanOut } from './fan-out.js';
import type { OutcomeWriter } from './outcome-writer.js';
import { secretKeyBytes, signatureHeader, type SecretBox } from './secret-box.js';
import type { Sender } from './sender.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** How soon a fan-out that found a cursor held by another replica looks again. */
const SKIPPED_RETRY_MS = 25;
/**
 * How long a delivery claimed ahead may wait for a free slot: later, it is left to its lease (which
 * runs WEBHOOK_TIMEOUT_MS + 30 s), so its attempt always ends before another replica may take it.
 */
const READY_MAX_WAIT_MS = 20_000;

/** A delivery claimed for a slot not yet free, and when it was claimed. */
interface Ready {
  delivery: ClaimedDelivery;
  claimedAt: number;
}

interface Target {
  id: string;
  url: string;
  enabled: boolean;
  keys: Buffer[];
}

interface RunnerOptions {
  pool: pg.Pool;
  logger: Logger;
  horizon: CommitHorizon;
  /** Starts listening for other replicas' commits (called when there is a webhook to deliver to). */
  listen: () => void;
  fanOut: FanOut;
  sender: Sender;
  secrets: SecretBox;
  outcomes: OutcomeWriter;
  metrics: WebhookMetrics;
  /** Attempts in flight per webhook on this replica (WEBHOOK_MAX_IN_FLIGHT). */
  maxInFlight: number;
  /** How long a claimed delivery is this replica's before another may take it (beyond the attempt's timeout). */
  leaseSeconds: number;
  /** How often webhooks are re-read and due deliveries looked for without a wake-up (default 1 s). */
  pollMs?: number;
}

/**
 * Delivers webhooks from this replica: follows the commit horizon, fans new commits out into
 * deliveries, claims due deliveries per enabled webhook (at most `maxInFlight` in flight each, so a
 * slow or dead endpoint holds only its own slots), sends them signed, and hands each outcome to the
 * writer. A class: it holds the loop's state (targets, slots, timers) that its methods share.
 */
export class DeliveryRunner {
  private targets = new Map<string, Target>();
  /** Per webhook, its attempts in flight (at most `maxInFlight`). */
  private readonly inFlight = new Map<string, Limiter>();
  /** Per webhook, deliveries claimed ahead (at most `maxInFlight`), sent as slots free. */
  private readonly ready = new Map<string, Ready[]>();
  private readonly claiming = new Set<string>();
  private readonly abort = new AbortController();
  private unfollow: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private wakeLoop: (() => void) | undefined;
  private readonly pollMs: number;
  private reread = true;
  private readonly unopenable = new Set<string>();

  constructor(private readonly o: RunnerOptions) {
    this.pollMs = o.pollMs ?? 1000;
  }

  start(): void {
    this.loop = this.run();
  }

  /** The horizon is polled only while there are webhooks to fan out to. */
  private following(yes: boolean): void {
    if (yes && !this.unfollow) {
      this.o.listen();
      this.unfollow = this.o.horizon.follow();
    }
    if (!yes && this.unfollow) {
      this.unfollow();
      this.unfollow = undefined;
    }
  }

  /** An admin change, a retry or a recovery here: look again now instead of at the next poll. */
  wake(): void {
    this.reread = true;
    this.wakeLoop?.();
  }

  async close(): Promise<void> {
    this.abort.abort();
    this.wakeLoop?.();
    await this.loop;
    this.following(false);
  }

  private async run(): Promise<void> {
    let fanned = 0n;
    let lastRead = 0;
    while (!this.abort.signal.aborted) {
      let failed = false;
      try {
        if (Date.now() - lastRead >= this.pollMs || this.reread) {
          this.reread = false;
          await this.readTargets();
          lastRead = Date.now();
          this.following(this.targets.size > 0);
        }
        if (this.targets.size > 0) fanned = await this.fanOutTo(this.o.horizon.bound, fanned);
        for (const target of this.targets.values()) if (target.enabled) this.pump(target);
      } catch (err) {
        failed = true;
        this.o.logger.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'webhook delivery pass failed; retrying');
      }
      // Without webhooks (or after a failure) nothing moves the horizon for us: wait out the poll.
      await this.sleep(this.targets.size > 0 && !failed ? fanned : undefined);
    }
  }

  /**
   * Waits for the horizon to pass what was fanned out (when given), a wake-up, close(), or the poll
   * interval. The interval is a timer of its own: Node 20 may collect an AbortSignal.timeout held
   * only by AbortSignal.any before it fires (nodejs/node#57736), and the loop would sleep for good.
   */
  private sleep(fanned: bigint | undefined): Promise<void> {
    const { signal } = this.abort;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        // A late waitPast of an earlier sleep must not take the wake-up of the current one.
        if (this.wakeLoop === done) this.wakeLoop = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      signal.addEventListener('abort', done, { once: true });
      this.wakeLoop = done;
      if (fanned !== undefined) void this.o.horizon.waitPast(fanned, this.pollMs, signal).then(done);
    });
  }

  private async fanOutTo(bound: bigint, fanned: bigint): Promise<bigint> {
    if (bound <= fanned) return fanned;
    for (;;) {
      const pass = await this.o.fanOut(bound);
      if (pass.lost) this.o.logger.error('webhook fan-out found commits purged before delivery (WATCH_RETENTION passed while no registry ran)');
      this.o.metrics.fannedOut.inc(pass.created);
      if (this.abort.signal.aborted) return fanned;
      if (pass.more) continue;
      if (!pass.skipped) return bound;
      // Another replica is fanning some webhook out: look again shortly, not at the next commit.
      await new Promise((resolve) => setTimeout(resolve, SKIPPED_RETRY_MS));
    }
  }

  private async readTargets(): Promise<void> {
    const rows = await sendingWebhooks(this.o.pool);
    const next = new Map<string, Target>();
    for (const row of rows) {
      const sealed = [row.secret_sealed, ...(row.previous_secret_sealed ? [row.previous_secret_sealed] : [])];
      try {
        const keys = sealed.map((s) => secretKeyBytes(this.o.secrets.open(row.id, s)));
        next.set(row.id, { id: row.id, url: row.url, enabled: row.enabled, keys });
      } catch {
        // Its deliveries stay pending: nothing is sent unsigned or signed with the wrong key.
        if (!this.unopenable.has(row.id)) this.o.logger.error({ webhookId: row.id }, 'cannot open the signing secret of a webhook: WEBHOOK_SECRET_KEY is not the key it was sealed with');
        this.unopenable.add(row.id);
      }
    }
    this.targets = next;
    for (const id of this.ready.keys()) if (!next.has(id)) this.ready.delete(id);
  }

  private slotsOf(id: string): Limiter {
    if (!this.inFlight.has(id)) this.inFlight.set(id, createLimiter({ limit: this.o.maxInFlight }));
    return this.inFlight.get(id)!;
  }

  /** Sends what this webhook has claimed ahead into its free slots, oldest claim first. */
  private fill(target: Target, ready: Ready[]): void {
    while (ready.length > 0) {
      const slot = this.slotsOf(target.id).tryAcquire();
      if (!slot) return;
      const next = ready.shift() as Ready;
      // Waited too long: its lease may end before an attempt would; it becomes due again then.
      if (Date.now() - next.claimedAt <= READY_MAX_WAIT_MS) this.attempt(target, next.delivery, slot);
      else slot();
    }
  }

  /**
   * Fills this webhook's free slots, and claims more once it holds no more than `maxInFlight` (in
   * flight and claimed ahead): a claim of at least one batch, taken while the previous one is still
   * being sent, so a slot that frees does not wait for a round trip to the database.
   */
  private pump(target: Target): void {
    let ready = this.ready.get(target.id);
    if (!ready) this.ready.set(target.id, (ready = []));
    this.fill(target, ready);
    const held = this.slotsOf(target.id).held + ready.length;
    if (this.claiming.has(target.id) || held > this.o.maxInFlight || this.abort.signal.aborted) return;
    this.claiming.add(target.id);
    const limit = 2 * this.o.maxInFlight - held;
    const queue = ready;
    claimDue(this.o.pool, target.id, limit, this.o.leaseSeconds)
      .then((claimed) => {
        const claimedAt = Date.now();
        for (const delivery of claimed) queue.push({ delivery, claimedAt });
        return claimed.length;
      })
      .catch((err: Error) => {
        this.o.logger.warn({ err: { message: err.message }, webhookId: target.id }, 'claiming webhook deliveries failed');
        return 0;
      })
      .then((n) => {
        this.claiming.delete(target.id);
        const current = this.targets.get(target.id);
        if (!current?.enabled) return;
        // A full claim: there may be more due.
        if (n === limit) this.pump(current);
        else this.fill(current, queue);
      });
  }

  private attempt(target: Target, delivery: ClaimedDelivery, slot: Release): void {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(target.keys, delivery.id, timestamp, delivery.body),
    };
    void this.o.sender.send(target.url, headers, delivery.body).then((result) => {
      slot();
      this.o.outcomes.add(delivery, result);
      const current = this.targets.get(target.id);
      if (current?.enabled) this.pump(current);
    });
  }
}
