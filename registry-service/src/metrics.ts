import { Counter, Histogram, type Registry } from 'prom-client';

/** Registry metrics, registered on the prom-client Registry passed in (exposed over HTTP in a later issue). */
export interface Metrics {
  /** acquired | contended (waited for another creator) | timeout (waited LOCK_WAIT_MS, went on) | fallback (lock store down) | expired (lost before release). */
  lockOutcomes: Counter<'outcome'>;
  lockWaitSeconds: Histogram;
  /** Entities created on first sighting, by kind (device, object, event_type). */
  entitiesCreated: Counter<'kind'>;
  eventsRecorded: Counter;
  /** Finished gRPC calls by method and status code. */
  grpcCallSeconds: Histogram<'method' | 'code'>;
}

export function createMetrics(registry: Registry): Metrics {
  return {
    lockOutcomes: new Counter({
      name: 'registry_lock_outcomes_total',
      help: 'Entity-creation lock attempts by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    lockWaitSeconds: new Histogram({
      name: 'registry_lock_wait_seconds',
      help: 'Time spent acquiring or waiting for an entity-creation lock',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    entitiesCreated: new Counter({
      name: 'registry_entities_created_total',
      help: 'Devices, objects and event types created on first sighting',
      labelNames: ['kind'],
      registers: [registry],
    }),
    eventsRecorded: new Counter({
      name: 'registry_events_recorded_total',
      help: 'Events committed',
      registers: [registry],
    }),
    grpcCallSeconds: new Histogram({
      name: 'registry_grpc_call_seconds',
      help: 'gRPC call duration by method and status code',
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
  };
}
