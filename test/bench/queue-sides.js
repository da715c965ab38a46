// The two queues of deliveries queue-compare.js sets side by side, each on a database of its own:
// - ours: the registry's write statement alone at ingest; fan-out from the commit log with a cursor
//   per webhook afterwards; claims and outcomes with the registry's own query functions (its dist);
// - pg-boss: the same write statement, and in the same transaction one job per webhook (at least once
//   needs the enqueue to commit with the event); fetch and complete in batches.
import pg from 'pg';
import { pino } from 'pino';
import PgBoss from 'pg-boss';
import { runMigrations } from '../../registry-service/dist/db/migrate.js';
import { lastCommitSeq } from '../../registry-service/dist/db/queries/commit-log.js';
import { insertRecordBatch } from '../../registry-service/dist/db/queries/record-events.js';
import { claimDue } from '../../registry-service/dist/db/queries/webhook-claims.js';
import { recordAttempts, updateWebhookHealth } from '../../registry-service/dist/db/queries/webhook-outcomes.js';
import { insertWebhook } from '../../registry-service/dist/db/queries/webhooks.js';
import { uuidv7 } from '../../registry-service/dist/uuid-v7.js';
import { createFanOut } from '../../registry-service/dist/webhooks/fan-out.js';
import { cpuUs } from './processes.js';

/** Deliveries claimed (or jobs fetched) per statement: the runner's claim at the default WEBHOOK_MAX_IN_FLIGHT (2 × 16). */
const BATCH = 32;
/** Known devices the events come from (created in the warm-up, as in the bench's steady load). */
const DEVICES = 1000;
const silent = pino({ level: 'silent' });

/** Events `i` … `i + ids.length - 1` (devices `i % DEVICES` on), as the registry's write statement takes them. */
function eventBatch(ids, i) {
  const batch = { devices: [], objects: [], types: [], events: [] };
  ids.forEach((id, k) => {
    const device = `qc-device-${(i + k) % DEVICES}`;
    const objectId = `gate-${(i + k) % DEVICES}`;
    batch.devices.push({ name: device, tokenId: undefined });
    batch.objects.push({ id: `acme.camera.lpr.${objectId}`, objectDomain: 'acme.camera.lpr', objectId, objectName: 'Gate', objectType: 'gate', deviceName: device, tokenId: undefined });
    batch.events.push({ id, objectRef: `acme.camera.lpr.${objectId}`, deviceName: device, domain: 'acme.camera.lpr', eventType: 'plate_detected', images: [], videoClips: [], properties: [{ key: 'plate', value: 'AB-123-CD' }, { key: 'lane', value: '2' }], tokenId: undefined });
  });
  batch.types.push({ domain: 'acme.camera.lpr', eventType: 'plate_detected', displayName: 'Plate detected', displayDescription: 'A plate read at a gate', tokenId: undefined });
  return batch;
}

const newIds = (n) => Array.from({ length: n }, () => uuidv7());

/** A pool whose connections stay open (their backends' CPU is read from /proc), all opened now. */
async function openPool(url, name, size) {
  const pool = new pg.Pool({ connectionString: url, max: size, idleTimeoutMillis: 0, application_name: name });
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
  const pids = await Promise.all(clients.map(async (c) => (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid));
  for (const c of clients) c.release();
  return { pool, pids };
}

/** Wall time, CPU µs of the pools' backends and of this process while `work` runs. */
export async function measure(pids, work) {
  const pg0 = pids.reduce((sum, pid) => sum + (cpuUs(pid) ?? 0), 0);
  const node0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const count = await work();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const node = process.cpuUsage(node0);
  const pgUs = pids.reduce((sum, pid) => sum + (cpuUs(pid) ?? 0), 0) - pg0;
  return { count, ms, pgUs, nodeUs: node.user + node.system };
}

/**
 * Writes events [from, to) in statements of `perStatement` events, `concurrency` statements at once
 * (the registry merges concurrent calls into shared statements, at most WRITE_CONCURRENCY, 8, at once).
 */
export async function ingest(from, to, concurrency, perStatement, write) {
  let next = from;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < to) {
      const i = next;
      const n = Math.min(perStatement, to - i);
      next += n;
      await write(i, n);
    }
  }));
  return to - from;
}

/** Our side: the registry's schema, `webhooks` webhooks whose cursors start after the warm-up. */
export async function createOurs(url, webhooks, size) {
  const { pool, pids } = await openPool(url, 'queue-compare-ours', size);
  await runMigrations(pool, silent);
  await ingest(0, DEVICES, 8, 25, (i, n) => insertRecordBatch(pool, eventBatch(newIds(n), i)));
  // The cursors start one commit back: the warm-up's last event becomes a real delivery, whose body pg-boss's jobs carry.
  const fannedThrough = (await lastCommitSeq(pool)) - 1n;
  const ids = [];
  for (let w = 0; w < webhooks; w++) {
    const row = { id: uuidv7(), url: `https://hooks.example.com/${w}`, description: '', filter: { kinds: ['event.created'] }, enabled: true, secretSealed: Buffer.alloc(60), fannedThrough };
    ids.push((await insertWebhook(pool, row)).id);
  }
  const fanOut = createFanOut(pool);
  await fanOut(await lastCommitSeq(pool));
  const sample = (await pool.query('SELECT body, event_id::text AS event_id FROM webhook_deliveries LIMIT 1')).rows[0];
  await drainOurs(pool, ids, Infinity);
  return {
    pool,
    pids,
    template: sample,
    write: (i, n) => insertRecordBatch(pool, eventBatch(newIds(n), i)),
    /** Fans every commit out into deliveries, as the runner does after the horizon moves. */
    async fanOutAll() {
      const bound = await lastCommitSeq(pool);
      let created = 0;
      for (let pass = await fanOut(bound); ; pass = await fanOut(bound)) {
        created += pass.created;
        if (!pass.more && !pass.skipped) return created;
      }
    },
    drain: (quota, until) => drainOurs(pool, ids, quota, until),
  };
}

/**
 * One loop per webhook: claim a batch, write its outcomes as the outcome writer does (attempts, then
 * the webhook's health); each loop stops after `quota` deliveries, or at `until` (ms since the epoch).
 */
async function drainOurs(pool, ids, quota, until = Infinity) {
  const counts = await Promise.all(ids.map(async (id) => {
    let done = 0;
    while (done < quota && Date.now() < until) {
      const claimed = await claimDue(pool, id, Math.min(BATCH, quota - done), 45);
      if (claimed.length === 0) break;
      const atMicros = BigInt(Date.now()) * 1000n;
      const outcomes = claimed.map((d) => ({ deliveryId: d.id, webhookId: d.webhookId, atMicros, statusCode: 204, durationMs: 3, error: '', responseBody: '', status: 'succeeded', nextAttemptAtMicros: undefined, disables: undefined }));
      await recordAttempts(pool, outcomes);
      await updateWebhookHealth(pool, [{ webhookId: id, succeeded: true, firstFailureMicros: undefined, disables: undefined }], 432_000);
      done += claimed.length;
    }
    return done;
  }));
  return counts.reduce((a, b) => a + b, 0);
}

/** pg-boss's side: the registry's schema for the events, pg-boss's own for one queue per webhook. */
export async function createPgBoss(url, webhooks, size, template) {
  const { pool, pids } = await openPool(url, 'queue-compare-pgboss', size);
  await runMigrations(pool, silent);
  await ingest(0, DEVICES, 8, 25, (i, n) => insertRecordBatch(pool, eventBatch(newIds(n), i)));
  const onPool = { executeSql: (text, values) => pool.query(text, values) };
  // No supervisor, scheduler or archiving during the run: only the queue's own statements are measured.
  const boss = new PgBoss({ db: onPool, schema: 'pgboss', supervise: false, schedule: false, migrate: true });
  boss.on('error', (err) => console.error('pg-boss:', err.message));
  await boss.start();
  const queues = Array.from({ length: webhooks }, (_, w) => `webhook-${w}`);
  for (const name of queues) await boss.createQueue(name);
  return {
    pool,
    pids,
    boss,
    /** The write statement and its jobs in one transaction: a job commits with its event or not at all. */
    async write(i, n) {
      const ids = newIds(n);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const stored = await insertRecordBatch(client, eventBatch(ids, i));
        const jobs = ids.flatMap((id, position) => {
          const data = { commit_seq: stored.commitSeq.toString(), position, type: 'event.created', event_id: id, body: template.body.replaceAll(template.event_id, id) };
          return queues.map((name) => ({ name, data }));
        });
        await boss.insert(jobs, { db: { executeSql: (text, values) => client.query(text, values) } });
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    /** As drainOurs: one loop per queue, fetching and completing in batches. */
    async drain(quota, until = Infinity) {
      const counts = await Promise.all(queues.map(async (name) => {
        let done = 0;
        while (done < quota && Date.now() < until) {
          const jobs = await boss.fetch(name, { batchSize: Math.min(BATCH, quota - done) });
          if (jobs.length === 0) break;
          await boss.complete(name, jobs.map((j) => j.id));
          done += jobs.length;
        }
        return done;
      }));
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}
