import type { TestRegistry } from './helpers.js';

/**
 * Runs the counts' pass until it has counted every commit handed out so far (main.ts runs it in the
 * background; retention purges only counted commits). Another file's long transaction can hold the
 * commit horizon a while: it retries for up to 20 s.
 */
export async function countAllCommits(t: TestRegistry): Promise<void> {
  const { rows } = await t.pool.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM commit_log');
  const deadline = Date.now() + 20_000;
  for (;;) {
    await t.server.rollup.runOnce();
    const state = await t.pool.query<{ through: string }>('SELECT rolled_through AS through FROM event_rollup_state');
    if (BigInt(state.rows[0]!.through) >= BigInt(rows[0]!.last)) return;
    if (Date.now() > deadline) throw new Error('the counts pass did not reach the last commit');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
