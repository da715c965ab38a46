import type { Server } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';

/**
 * The health service name a liveness probe asks for: SERVING for as long as the process answers,
 * whatever its dependencies do, so a database outage makes pods unready but never restarts them.
 */
export const LIVENESS_SERVICE = 'liveness';

/** grpc.health.v1 on a server: the overall "" entry and every registered service flip together. */
interface ServingHealth {
  /** Adds a service, in the current state. */
  add(service: string): void;
  set(serving: boolean): void;
  /** The current state of the overall entry. */
  serving(): boolean;
}

/** Starts NOT_SERVING (readiness comes once the service's dependencies answer); liveness is always SERVING. */
export function addServingHealth(server: Server): ServingHealth {
  const names: string[] = [''];
  const health = new HealthImplementation({ '': 'NOT_SERVING', [LIVENESS_SERVICE]: 'SERVING' });
  health.addToServer(server);
  let serving = false;
  const status = () => (serving ? 'SERVING' : 'NOT_SERVING');
  return {
    add(service) {
      names.push(service);
      health.setStatus(service, status());
    },
    set(value) {
      serving = value;
      for (const name of names) health.setStatus(name, status());
    },
    serving: () => serving,
  };
}
