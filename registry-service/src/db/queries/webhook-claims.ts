import type { ChangeKind } from '../../webhooks/webhook-model.js';
import type { Queryable } from '../pool.js';
import { query } from './query.js';

/** A delivery a replica claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  type: ChangeKind;
  body: string;
  /** Attempts before this one. */
  attemptCount: number;
}

/**
 * Claims up to `limit` due deliveries of an enabled webhook, oldest due first (first attempts in
 * commit order), skipping rows another replica is claiming, and moves their due time to the end of
 * a lease: a replica that dies mid-attempt leaves them due again then, and no replica takes them
 * meanwhile.
 */
export async function claimDue(db: Queryable, webhookId: string, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  const rows = await query<{ id: string; type: ChangeKind; body: string; attempt_count: number }>(
    db,
    `WITH due AS (
       SELECT d.id, d.next_attempt_at, d.commit_seq, d.position FROM webhook_deliveries d
       WHERE d.webhook_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now()
         AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = $1 AND w.enabled)
       ORDER BY d.next_attempt_at, d.commit_seq, d.position
       LIMIT $2 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $3)
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.type, d.body, d.attempt_count, due.next_attempt_at AS was_due, due.commit_seq, due.position
     )
     SELECT id, type, body, attempt_count FROM claimed ORDER BY was_due, commit_seq, position`,
    [webhookId, limit, leaseSeconds],
    'registry-webhook-claim',
  );
  return rows.map((r) => ({ id: r.id, webhookId, type: r.type, body: r.body, attemptCount: r.attempt_count }));
}
