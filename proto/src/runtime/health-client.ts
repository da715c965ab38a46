import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { channelOptions, type ClientOptions } from './grpc-client.js';
import { pollUntil, type PollOptions } from './poll.js';

const HealthClient = makeGenericClientConstructor(healthService, 'Health');

/** Asks a server's grpc.health.v1 endpoint whether a service is SERVING (readiness of dependencies). */
interface HealthChecker {
  /** True only for SERVING; false for NOT_SERVING, unknown services, errors and timeouts. */
  isServing(service: string, deadlineMs: number): Promise<boolean>;
  close(): void;
}

export function createHealthChecker(address: string, options: ClientOptions = {}): HealthChecker {
  const client = new HealthClient(address, credentials.createInsecure(), channelOptions(options)) as unknown as Client & {
    check(req: { service: string }, opts: { deadline: number }, cb: (err: ServiceError | null, res?: { status?: string | number }) => void): void;
  };
  return {
    isServing(service, deadlineMs) {
      return new Promise((resolve) => {
        client.check({ service }, { deadline: Date.now() + deadlineMs }, (err, res) => {
          // proto-loader decodes the enum as its name by default; accept the number too.
          resolve(!err && (res?.status === 'SERVING' || res?.status === 1));
        });
      });
    },
    close: () => client.close(),
  };
}

/**
 * Waits until `service` at `address` is SERVING (each check with a 1 s deadline); false when
 * `options.stopped()` turned true first, throws after `options.timeoutMs`.
 */
export async function waitUntilServing(address: string, service: string, options: PollOptions): Promise<boolean> {
  const health = createHealthChecker(address);
  try {
    return await pollUntil(`${service || 'the server'} at ${address} did not become SERVING`, () => health.isServing(service, 1000), options);
  } finally {
    health.close();
  }
}
