/**
 * The launcher's variables (`npm start`), read through the same loader and, where a service reads
 * the same variable, the same definition as the services, so a bad value fails here first with the
 * services' own words. The launcher passes the environment on to the services unchanged, except
 * the ports it chooses and the defaults below that differ for one machine.
 */
import {
  ALLOWED_HOSTS,
  connectable,
  DATA_DIR,
  DATABASE_URL,
  defineEnv,
  type EnvValues,
  type EnvVar,
  GRPC_HOST,
  HOST,
  integer,
  LOG_LEVEL,
  MEDIA_ADDR,
  MEDIA_GRPC_PORT,
  METRICS_HOST,
  PLATFORM_SEGMENT,
  PORT,
  PUBLIC_BASE_URL,
  REGISTRY_ADDR,
  REGISTRY_GRPC_PORT,
  REGISTRY_INTERNAL_TOKEN,
  SHUTDOWN_TIMEOUT_MS,
  withDefault,
} from '@dynamic-events/proto/runtime';

/** An internal port: as set, else its default when free, else any free port (ports.ts). */
function internalPort(variable: EnvVar<number, true>): EnvVar<number, false> {
  const { default: _unset, ...schema } = variable.schema;
  return { ...variable, schema, defaultText: 'a free port if that one is taken' } as EnvVar<number, false>;
}

/** A metrics port of one service, which the launcher hands it as METRICS_PORT. */
function metricsPortOf(service: string, fallback: number): EnvVar<number, false> {
  return integer({
    minimum: 1,
    maximum: 65535,
    defaultText: `\`${fallback}\`, or a free port if that one is taken`,
    description: `Under \`npm start\`: the ${service}'s \`METRICS_PORT\`.`,
  });
}

export const LAUNCHER_ENV = defineEnv({
  PORT,
  HOST,
  PLATFORM_SEGMENT,
  PUBLIC_BASE_URL,
  // One machine, often listening on 0.0.0.0: only the names it is reached by (plan.ts), unless set.
  ALLOWED_HOSTS: { ...ALLOWED_HOSTS, defaultText: '`localhost`, `127.0.0.1`, `::1` and the host of `PUBLIC_BASE_URL`' },
  DATA_DIR,
  DATABASE_URL: { ...DATABASE_URL, defaultText: 'an embedded Postgres' },
  REGISTRY_GRPC_PORT: internalPort(connectable(REGISTRY_GRPC_PORT)),
  MEDIA_GRPC_PORT: internalPort(connectable(MEDIA_GRPC_PORT)),
  REGISTRY_ADDR,
  MEDIA_ADDR,
  // Unset: a fresh one per stack, handed to registry and gateway and written to DATA_DIR/stack.json for the CLI.
  REGISTRY_INTERNAL_TOKEN: { ...REGISTRY_INTERNAL_TOKEN, defaultText: 'a new one per stack, in `DATA_DIR/stack.json`' },
  // Internal gRPC and metrics ports stay on loopback in the all-in-one mode; only the gateway faces users.
  GRPC_HOST: withDefault(GRPC_HOST, '127.0.0.1'),
  // Gateway drain then backend drain must fit in the 10 s a container runtime usually grants.
  SHUTDOWN_TIMEOUT_MS: withDefault(SHUTDOWN_TIMEOUT_MS, 4000),
  GATEWAY_METRICS_PORT: metricsPortOf('gateway', 9464),
  REGISTRY_METRICS_PORT: metricsPortOf('registry', 9465),
  MEDIA_METRICS_PORT: metricsPortOf('media service', 9466),
  DELIVERY_METRICS_PORT: metricsPortOf('webhook delivery process (a registry replica with `WEBHOOK_DELIVERY=on`)', 9467),
  METRICS_HOST: withDefault(METRICS_HOST, '127.0.0.1'),
  LOG_LEVEL,
});

/** The launcher's validated variables. */
export type LauncherConfig = EnvValues<typeof LAUNCHER_ENV.vars>;
