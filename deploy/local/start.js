#!/usr/bin/env node
/**
 * All-in-one launcher behind `npm start`: runs registry, media and gateway as three child processes
 * (the same entry points the containers use) on one machine, with embedded defaults unless
 * DATABASE_URL / REDIS_URL / S3_* are set, which are passed through unchanged.
 *
 * Signals: children run in their own process groups, so a Ctrl-C or a SIGTERM to `npm start`'s
 * group reaches only this process, which stops the gateway first (it finishes in-flight requests),
 * then registry and media. npm forwards the group's signal once more a millisecond later; a burst
 * counts as one request. A second signal more than a second later forces.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, hostPort, localUrl, pollUntil, waitUntilServing } from '@dynamic-events/proto/runtime';
import { MEDIA_SERVICE_NAME, REGISTRY_SERVICE_NAME } from '@dynamic-events/proto';
import { LAUNCHER_ENV } from './config.js';
import { chooseInternalPorts } from './ports.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = process.env;
let config;
try {
  config = LAUNCHER_ENV.load(env);
} catch (err) {
  createLogger('launcher').fatal({ err }, 'failed to start');
  process.exit(1);
}
const log = createLogger('launcher', config.LOG_LEVEL);

// For the start-up line only: the gateway owns public URLs and derives the same default from PORT.
const publicBaseUrl = (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
// Three processes on one host need three metrics ports; in Kubernetes each pod just sets METRICS_PORT.
const { GRPC_HOST: grpcHost, METRICS_HOST: metricsHost } = config;
const { ports, moved } = await chooseInternalPorts([
  { name: 'REGISTRY_GRPC_PORT', value: config.REGISTRY_GRPC_PORT, fallback: 50051, host: grpcHost },
  { name: 'MEDIA_GRPC_PORT', value: config.MEDIA_GRPC_PORT, fallback: 50052, host: grpcHost },
  { name: 'GATEWAY_METRICS_PORT', value: config.GATEWAY_METRICS_PORT, fallback: 9464, host: metricsHost },
  { name: 'REGISTRY_METRICS_PORT', value: config.REGISTRY_METRICS_PORT, fallback: 9465, host: metricsHost },
  { name: 'MEDIA_METRICS_PORT', value: config.MEDIA_METRICS_PORT, fallback: 9466, host: metricsHost },
]);
for (const { name, from, to } of moved) log.warn({ variable: name, default: from, port: to }, `default port ${from} is taken: ${name} uses ${to} (set it to choose)`);
const registryPort = ports.REGISTRY_GRPC_PORT;
const mediaPort = ports.MEDIA_GRPC_PORT;
const metricsPorts = { gateway: ports.GATEWAY_METRICS_PORT, registry: ports.REGISTRY_METRICS_PORT, media: ports.MEDIA_METRICS_PORT };
const childEnv = {
  ...env,
  REGISTRY_GRPC_PORT: String(registryPort),
  MEDIA_GRPC_PORT: String(mediaPort),
  GRPC_HOST: grpcHost,
  REGISTRY_ADDR: config.REGISTRY_ADDR ?? hostPort('127.0.0.1', registryPort),
  MEDIA_ADDR: config.MEDIA_ADDR ?? hostPort('127.0.0.1', mediaPort),
  SHUTDOWN_TIMEOUT_MS: String(config.SHUTDOWN_TIMEOUT_MS),
  METRICS_HOST: metricsHost,
};

const children = new Map();
let stopping = false;
/** The embedded Postgres keeper (npm start without DATABASE_URL), stopped after the services. */
let postgres;

/**
 * Starts the embedded Postgres in its own process (deploy/local/postgres/guardian.ts) and resolves
 * with its URL, which the registry gets as DATABASE_URL like any other Postgres.
 */
function startEmbeddedPostgres() {
  const child = spawn(process.execPath, [join(root, 'deploy', 'local', 'dist', 'guardian.js')], {
    env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', LOG_LEVEL: config.LOG_LEVEL, DATA_DIR: config.DATA_DIR },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  postgres = { child, exited };
  exited.then(({ code, signal }) => {
    if (!stopping) {
      log.error({ code, signal }, 'embedded Postgres exited unexpectedly; stopping the services');
      void stop('embedded Postgres exited', 1);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.url));
    exited.then(({ code }) => reject(new Error(`embedded Postgres did not start (exit ${code})`)));
  });
}

/** Stops the embedded Postgres, once the services that use it have exited. */
async function stopEmbeddedPostgres() {
  if (!postgres) return true;
  const { child, exited } = postgres;
  if (child.exitCode === null && child.signalCode === null) {
    if (child.connected) child.send('stop');
    else child.kill('SIGTERM');
  }
  return (await exited).code === 0;
}

function start(name, dir) {
  const child = spawn(process.execPath, [join(root, dir, 'dist', 'main.js')], {
    env: { ...childEnv, METRICS_PORT: String(metricsPorts[name]) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  children.set(name, { child, exited });
  exited.then(({ code, signal }) => {
    if (!stopping) {
      log.error({ child: name, code, signal }, 'service exited unexpectedly; stopping the others');
      void stop('child exited', 1);
    }
  });
  return child;
}

async function terminate(names) {
  const results = await Promise.all(
    names.filter((name) => children.has(name)).map(async (name) => {
      const { child, exited } = children.get(name);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const result = await exited;
      return result.code === 0;
    }),
  );
  return results.every(Boolean);
}

async function stop(reason, code = 0) {
  if (stopping) return;
  stopping = true;
  log.info({ reason }, 'stopping: gateway first, then registry and media, then the embedded Postgres');
  const gatewayOk = await terminate(['gateway']);
  const backendsOk = await terminate(['registry', 'media']);
  const postgresOk = await stopEmbeddedPostgres();
  const ok = gatewayOk && backendsOk && postgresOk;
  log.info({ ok }, 'stopped');
  process.exit(code !== 0 ? code : ok ? 0 : 1);
}

let firstSignalAt = 0;
function onSignal(signal) {
  const now = Date.now();
  if (firstSignalAt === 0) {
    firstSignalAt = now;
    void stop(signal);
  } else if (now - firstSignalAt > 1000) {
    log.warn({ signal }, 'second signal: forcing');
    for (const { child } of children.values()) child.kill('SIGKILL');
    process.exit(1);
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => onSignal(signal));

if (config.DATABASE_URL === undefined) {
  try {
    childEnv.DATABASE_URL = await startEmbeddedPostgres();
  } catch (err) {
    log.error({ err }, 'start-up failed');
    await stop('start-up failed', 1);
  }
}
if (!stopping) {
  start('registry', 'registry-service');
  start('media', 'media-service');
}
try {
  const backend = (name, address, service) => waitUntilServing(address, service, { timeoutMs: 60_000, stopped: () => stopping });
  await Promise.all([backend('registry', childEnv.REGISTRY_ADDR, REGISTRY_SERVICE_NAME), backend('media', childEnv.MEDIA_ADDR, MEDIA_SERVICE_NAME)]);
} catch (err) {
  log.error({ err }, 'start-up failed');
  await stop('start-up failed', 1);
}
if (!stopping) {
  start('gateway', 'ingest-gateway');
  // Announce only once the gateway answers: the README tells people to send requests at this line.
  const probe = localUrl(config.HOST, config.PORT, '/healthz');
  try {
    const answered = () => fetch(probe).then((res) => res.ok);
    await pollUntil(`gateway did not answer ${probe}`, answered, { timeoutMs: 30_000, stopped: () => stopping });
    const metrics = Object.fromEntries(Object.entries(metricsPorts).map(([name, port]) => [name, localUrl(metricsHost, port, '/metrics')]));
    const grpc = { registry: childEnv.REGISTRY_ADDR, media: childEnv.MEDIA_ADDR };
    if (!stopping) log.info({ url: `${publicBaseUrl}/api/${config.PLATFORM_SEGMENT}/dh/dynamic-events`, metrics, grpc }, 'all services started');
  } catch (err) {
    log.error({ err }, 'start-up failed');
    await stop('start-up failed', 1);
  }
}
