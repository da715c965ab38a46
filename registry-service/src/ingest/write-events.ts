import type pg from 'pg';
import { AppError, identityConflict } from '@dynamic-events/proto';
import { findObject } from '../db/queries/objects.js';
import { IDENTITY_CONFLICT_RULE } from '../db/queries/query.js';
import { eventTypeKey } from '../db/queries/event-types.js';
import type { NewEventRow } from '../db/queries/event-columns.js';
import type { NewDeviceRow, NewEventTypeRow, NewKeyRow, NewObjectRow } from '../db/queries/record-batch-rows.js';
import { insertRecordBatch } from '../db/queries/record-events.js';
import type { EntityLocks } from '../locks/entity-locks.js';
import type { Metrics } from '../metrics.js';
import { deviceKey, objectKey, typeKey, type KnownEntities } from './known-entities.js';
import { fullObjectId, type NewEvent, type RecordedEvent } from '../model.js';
import { toEventRecord } from '../reads/reads.js';
import { uuidv7 } from '../uuid-v7.js';

interface WriterDeps {
  pool: pg.Pool;
  locks: EntityLocks;
  known: KnownEntities;
  metrics: Metrics;
  /** Runs after each statement committed (wakes watchers). */
  onCommit?: () => void;
}

/**
 * Writes validated events in ONE statement: ensures device, object and event type, then inserts the
 * events. All or none; resolves once it committed, results in order. Rejects with an AppError when
 * a caller's value broke the statement or the database is unreachable (UNAVAILABLE), with a plain
 * Error when the database failed otherwise.
 */
export type WriteEvents = (events: NewEvent[]) => Promise<RecordedEvent[]>;


/**
 * The distinct entities a batch mentions; the first event naming one supplies its attributes and,
 * when it is new, its creating token.
 */
function planEntities(events: NewEvent[]) {
  const devices = new Map<string, NewDeviceRow>();
  const objects = new Map<string, NewObjectRow>();
  const types = new Map<string, NewEventTypeRow>();
  for (const { source, eventType, tokenId } of events) {
    if (!devices.has(source.deviceName)) devices.set(source.deviceName, { name: source.deviceName, tokenId });
    const id = fullObjectId(source.objectDomain, source.objectId);
    if (!objects.has(id)) objects.set(id, { id, ...source, tokenId });
    const key = eventTypeKey(source.objectDomain, eventType.eventType);
    if (!types.has(key)) types.set(key, { domain: source.objectDomain, ...eventType, tokenId });
  }
  const lockKeys = [...[...devices.keys()].map(deviceKey), ...[...objects.keys()].map(objectKey), ...[...types.keys()].map(typeKey)];
  return { devices: [...devices.values()], objects: [...objects.values()], types: [...types.values()], lockKeys };
}

/**
 * Whether an event of a token may create a device or object in this batch (known entities create
 * nothing): the statement then reads that token's policy from its row and applies its limits. The
 * policy is not looked up here: only the row, locked in the statement, is current.
 */
function tokenMayCreate(plan: ReturnType<typeof planEntities>, known: KnownEntities): boolean {
  return (
    plan.devices.some((d) => d.tokenId !== undefined && !known.has(deviceKey(d.name))) ||
    plan.objects.some((o) => o.tokenId !== undefined && !known.has(objectKey(o.id)))
  );
}

/**
 * The database refused an event whose full object id names an object of another domain. Alone in
 * its statement, the event gets the shared rule's error naming the existing object; in a group, the
 * error is rethrown as is and the recorder splits the group until the event is alone.
 */
async function explainIdentityConflict(pool: pg.Pool, events: NewEvent[], err: unknown): Promise<never> {
  const [event] = events;
  // Anything else (an outage, already UNAVAILABLE from the query helper, another caller error, or a
  // plain database failure) goes on as it is.
  if (events.length !== 1 || !event || !(err instanceof AppError) || err.details.rule !== IDENTITY_CONFLICT_RULE) throw err;
  const existing = await findObject(pool, fullObjectId(event.source.objectDomain, event.source.objectId));
  throw (existing && identityConflict(existing, event.source)) || err;
}

export function createWriteEvents(deps: WriterDeps): WriteEvents {
  const { pool, locks, known, metrics, onCommit } = deps;

  return async (events) => {
    if (events.length === 0) return [];
    const plan = planEntities(events);
    // Every field the statement writes (NewEventRow): a new column is not forgotten here.
    const rows = events.map((e): NewEventRow => ({
      id: uuidv7(),
      objectRef: fullObjectId(e.source.objectDomain, e.source.objectId),
      deviceName: e.source.deviceName,
      domain: e.source.objectDomain,
      eventType: e.eventType.eventType,
      images: e.images,
      videoClips: e.videoClips,
      properties: e.properties,
      tokenId: e.tokenId,
      occurredUs: e.occurredAtMicros,
    }));
    // Idempotency keys (distinct: the idempotent recorder collapses duplicates) commit with their events.
    let keys: NewKeyRow[] | undefined;
    events.forEach(({ idempotency: k }, i) => {
      if (k !== undefined) (keys ??= []).push({ scope: k.scope, key: k.key, requestHash: k.requestHash, eventId: rows[i]!.id });
    });
    // Only first sightings need the lock; known identities go straight to the (idempotent) inserts.
    const unknown = plan.lockKeys.filter((key) => !known.has(key));
    // One statement (one round trip) in the spec's order: device, object, event type, the events, their keys.
    const stored = await locks(unknown, () =>
      insertRecordBatch(pool, { devices: plan.devices, objects: plan.objects, types: plan.types, events: rows, keys, tokenCreations: tokenMayCreate(plan, known) }),
    ).catch((err: unknown) => explainIdentityConflict(pool, events, err));
    onCommit?.();
    for (const key of plan.lockKeys) known.add(key);
    metrics.eventsRecorded.inc(events.length);
    const ensured = (kind: string, named: number, created: number) => {
      metrics.entitiesEnsured.inc({ kind, result: 'created' }, created);
      metrics.entitiesEnsured.inc({ kind, result: 'reused' }, named - created);
    };
    ensured('device', plan.devices.length, stored.devices.size);
    ensured('object', plan.objects.length, stored.objects.size);
    ensured('event_type', plan.types.length, stored.types.size);

    // Within a batch, only the first event naming a created entity reports it as created.
    const claim = (set: Set<string>, key: string): boolean => set.delete(key);
    return events.map((event, i) => {
      const row = rows[i]!;
      const times = stored.times.get(row.id);
      if (!times) throw new Error(`event ${row.id} missing from INSERT ... RETURNING`);
      return {
        event: toEventRecord({ ...row, ...times }),
        outcome: {
          deviceCreated: claim(stored.devices, row.deviceName),
          objectCreated: claim(stored.objects, row.objectRef),
          eventTypeCreated: claim(stored.types, eventTypeKey(row.domain, row.eventType)),
        },
      };
    });
  };
}
