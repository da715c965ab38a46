import type pg from 'pg';
import { commitsBetween, recordsOf } from '../db/queries/commit-log.js';
import { inTransaction } from '../db/queries/transaction.js';
import { insertDeliveries, lockCursorsBehind, moveCursors, type NewDelivery } from '../db/queries/webhook-fan-out.js';
import { filterFromJson } from '../db/queries/webhooks.js';
import { uuidv7 } from '../uuid-v7.js';
import { toFeedCommit, type Change } from '../watch/commit-feed.js';
import { changeBody, changeKind, eventIdOf, filterTakes } from './change-payload.js';

/** Commits one fan-out transaction reads at most, and about how many bytes of their events. */
const PAGE_COMMITS = 200;
const PAGE_BYTES = 1024 * 1024;

/** One pass of fan-out: how many deliveries it created and whether commits up to the bound remain. */
interface FanOutPass {
  created: number;
  more: boolean;
  /** Commits the pass found purged before any webhook had them (WATCH_RETENTION passed while no registry ran). */
  lost: boolean;
  /** Another replica held some webhook's cursor: the bound is not reached for it yet. */
  skipped: boolean;
}

/**
 * Turns commits into deliveries: in one transaction, locks the webhooks whose cursor is behind the
 * horizon (skipping those another replica holds), reads a page of the commits after the lowest
 * cursor with their records, inserts one delivery per webhook and matching change after that
 * webhook's own cursor, and moves the cursors to the page's end. A crash before the commit leaves
 * cursors and deliveries as they were; after it, each change has its delivery once. Disabled
 * webhooks fan out too: their deliveries wait for them.
 */
export function createFanOut(pool: pg.Pool) {
  return async function fanOut(bound: bigint): Promise<FanOutPass> {
    return inTransaction(pool, async (db) => {
      const { cursors, skipped } = await lockCursorsBehind(db, bound);
      if (cursors.length === 0) return { created: 0, more: false, lost: false, skipped };
      const from = cursors.reduce((min, c) => (c.fannedThrough < min ? c.fannedThrough : min), bound);
      // Commits up to the bound are finished and never change: read on the pool (recordsOf reads its
      // kinds in parallel, which one transaction's connection would only queue).
      const page = await commitsBetween(pool, from, bound, PAGE_COMMITS, PAGE_BYTES);
      const full = page.cut || page.commits.length === PAGE_COMMITS;
      const through = full ? (page.commits.at(-1)?.seq ?? bound) : bound;
      const records = await recordsOf(pool, page.commits);
      const bodies = new Map<Change, string>();
      const deliveries: NewDelivery[] = [];
      const targets = cursors.map((c) => ({ ...c, filter: filterFromJson(c.filter) }));
      for (const commit of page.commits) {
        toFeedCommit(commit, records).changes.forEach((change, position) => {
          // A hole is a row retention removed before its fan-out.
          if (change === undefined) return;
          for (const target of targets) {
            if (commit.seq <= target.fannedThrough || !filterTakes(target.filter, change)) continue;
            let body = bodies.get(change);
            if (body === undefined) bodies.set(change, (body = changeBody(change)));
            deliveries.push({ id: uuidv7(), webhookId: target.id, commitSeq: commit.seq, position, type: changeKind(change), eventId: eventIdOf(change), body });
          }
        });
      }
      await insertDeliveries(db, deliveries);
      await moveCursors(db, cursors.map((c) => c.id), through);
      return { created: deliveries.length, more: through < bound, lost: page.purgedThrough > from, skipped };
    });
  };
}

export type FanOut = ReturnType<typeof createFanOut>;
