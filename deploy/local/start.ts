#!/usr/bin/env node
/**
 * All-in-one launcher behind `npm start` (built to deploy/local/dist/start.js): runs registry, media
 * and gateway as child processes (the same entry points the containers use) on one machine, and a
 * second registry process that only sends webhooks (WEBHOOK_DELIVERY=on, the one ingest calls has
 * it off) at a lower CPU priority, so deliveries use what ingest leaves of the machine's CPU,
 * with embedded defaults unless DATABASE_URL / REDIS_URL / S3_* are set, which are passed through
 * unchanged.
 *
 * Before it starts anything it settles the whole stack (plan.ts): its own variables, every port it
 * will bind and each service's configuration; anything wrong fails at once, naming the variable.
 * Then the embedded Postgres (without DATABASE_URL), registry and media, and the gateway once both
 * report ready over IPC (children.ts). When the gateway reports it listens, the addresses go to
 * DATA_DIR/stack.json (stack-file.ts), with the stack's REGISTRY_INTERNAL_TOKEN for the operator CLI
 * (generated per stack when unset, never logged), and the log says "all services started".
 *
 * Signals: children run in their own process groups, so a Ctrl-C or a SIGTERM to `npm start`'s
 * group reaches only this process, which stops the gateway first (it finishes in-flight requests),
 * then registry and media. npm forwards the group's signal once more a millisecond later; a burst
 * counts as one request. A second signal more than a second later forces.
 */
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, localUrl } from '@dynamic-events/proto/runtime';
import { isListening, isPostgresUrl, startChild, type Child, type Listening } from './children.js';
import { LAUNCHER_ENV, type LauncherConfig } from './config.js';
import { planStack, type StackPlan } from './plan.js';
import { startTimeOf } from './postgres/postmaster.js';
import type { ServiceName } from './service-configs.js';
import { removeStackFile, writeStackFile } from './stack-file.js';
import { stackWebhookKey } from './webhook-key.js';

/** The repository root, from deploy/local/dist/. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const env = process.env;
let config: LauncherConfig;
let plan: StackPlan;
/** WEBHOOK_SECRET_KEY of this DATA_DIR when the variable is unset (webhook-key.ts). */
let webhookKey: string | undefined;
try {
  config = LAUNCHER_ENV.load(env);
  webhookKey = env.WEBHOOK_SECRET_KEY === undefined ? await stackWebhookKey(config.DATA_DIR) : undefined;
  plan = await planStack(config, env, undefined, webhookKey);
} catch (err) {
  createLogger('launcher').fatal({ err }, 'failed to start');
  process.exit(1);
}
const log = createLogger('launcher', config.LOG_LEVEL);

const services = new Map<ServiceName, Child<Listening>>();
/**
 * The delivery process' nice value: under contention it gets about a tenth of a core's share
 * against a service at 0 (the kernel's weights 110 against 1024), and all of an idle machine.
 */
const DELIVERY_NICE = 10;
/** The embedded Postgres keeper (npm start without DATABASE_URL), stopped after the services. */
let postgres: Child<{ url: string }> | undefined;
let stopping = false;

/** Any child that exits while the stack runs stops the stack. */
function watch(child: Child<unknown>): void {
  void child.exited.then(({ code, signal }) => {
    if (stopping) return;
    log.error({ child: child.name, code, signal }, `${child.name} exited unexpectedly; stopping the others`);
    void stop(`${child.name} exited`, 1);
  });
}

/**
 * Nices the delivery process once it is ready, not before: its start (module loading, start-up
 * queries) is part of the stack's, which at a tenth of a core's share took seconds on a busy machine.
 */
function lowerPriority(child: Child<Listening>): void {
  const { pid } = child.process;
  if (pid === undefined || child.process.exitCode !== null) return;
  try {
    setPriority(pid, DELIVERY_NICE);
  } catch (err) {
    // It exited meanwhile (ESRCH): watch() reports that.
    log.warn({ child: child.name, error: (err as Error).message }, 'could not lower its priority');
  }
}

function startService(name: ServiceName, dir: string, readyWithinMs: number): Child<Listening> {
  const child = startChild({ name, script: join(root, dir, 'dist', 'main.js'), env: plan.envs[name], isReady: isListening, readyWithinMs });
  if (name === 'delivery') void child.ready.then(() => lowerPriority(child), () => undefined);
  services.set(name, child);
  watch(child);
  return child;
}

async function stopServices(names: ServiceName[]): Promise<boolean> {
  const results = await Promise.all(names.map((name) => services.get(name)?.stop() ?? true));
  return results.every(Boolean);
}

async function stop(reason: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ reason }, 'stopping: gateway first, then registry, delivery and media, then the embedded Postgres');
  await removeStackFile(config.DATA_DIR);
  const gatewayOk = await stopServices(['gateway']);
  const backendsOk = await stopServices(['registry', 'delivery', 'media']);
  const postgresOk = (await postgres?.stop()) ?? true;
  const ok = gatewayOk && backendsOk && postgresOk;
  log.info({ ok }, 'stopped');
  process.exit(code !== 0 ? code : ok ? 0 : 1);
}

let firstSignalAt = 0;
function onSignal(signal: NodeJS.Signals): void {
  const now = Date.now();
  if (firstSignalAt === 0) {
    firstSignalAt = now;
    void stop(signal);
  } else if (now - firstSignalAt > 1000) {
    log.warn({ signal }, 'second signal: forcing');
    for (const child of services.values()) child.kill();
    process.exit(1);
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));

/** Starts the embedded Postgres in its own process (postgres/guardian.ts) and resolves with its URL. */
async function startEmbeddedPostgres(): Promise<string> {
  postgres = startChild({
    name: 'embedded Postgres',
    script: join(root, 'deploy', 'local', 'dist', 'postgres', 'guardian.js'),
    env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', LOG_LEVEL: config.LOG_LEVEL, DATA_DIR: config.DATA_DIR },
    isReady: isPostgresUrl,
    // The first start creates the cluster (and, as root, may copy the binaries first).
    readyWithinMs: 300_000,
    stopMessage: 'stop',
  });
  watch(postgres);
  return (await postgres.ready).url;
}

async function startStack(): Promise<void> {
  if (config.DATABASE_URL === undefined) {
    const url = await startEmbeddedPostgres();
    // The ports again, right before the services bind them: another stack may have taken one while Postgres started.
    plan = await planStack(config, env, plan.internalToken, webhookKey);
    plan.envs.registry.DATABASE_URL = url;
    plan.envs.delivery.DATABASE_URL = url;
  }
  if (stopping) return;
  for (const { name, from, to } of plan.moved) log.warn({ variable: name, default: from, port: to }, `default port ${from} is taken: ${name} uses ${to} (set it to choose)`);
  // The registry applies its migrations before it listens.
  const [registry, media] = [startService('registry', 'registry-service', 120_000), startService('media', 'media-service', 60_000)];
  const [registryReady, mediaReady] = await Promise.all([registry.ready, media.ready]);
  if (stopping) return;
  const [gateway, deliveryReady] = await Promise.all([startService('gateway', 'ingest-gateway', 60_000).ready, startService('delivery', 'registry-service', 60_000).ready]);
  if (stopping) return;
  const port = config.PORT === 0 ? gateway.listening.port : config.PORT;
  // The gateway owns public URLs and derives the same default from PORT.
  const publicBaseUrl = (config.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const metricsUrl = ({ listening }: Listening) => localUrl(config.METRICS_HOST, listening.metricsPort, '/metrics');
  const metrics = { gateway: metricsUrl(gateway), registry: metricsUrl(registryReady), media: metricsUrl(mediaReady), delivery: metricsUrl(deliveryReady) };
  const grpc = { registry: plan.registryAddr, media: plan.mediaAddr };
  const url = `${publicBaseUrl}/api/${config.PLATFORM_SEGMENT}/dh/dynamic-events`;
  await writeStackFile(config.DATA_DIR, { pid: process.pid, started: await startTimeOf(process.pid), url, gateway: localUrl(config.HOST, port), ...grpc, metrics, internalToken: plan.internalToken });
  // The README tells people to send requests at this line.
  if (stopping) return;
  log.info({ url, metrics, grpc }, 'all services started');
  logConsole(`${publicBaseUrl}/api/${config.PLATFORM_SEGMENT}/dh/settings/dynamic-events/`);
}

/** One line: where the settings console is, or how to turn it on (it is served only with ADMIN_TOKEN). */
function logConsole(consoleUrl: string): void {
  if (plan.envs.gateway.ADMIN_TOKEN) log.info({ console: consoleUrl }, `settings console: ${consoleUrl} (sign in with ADMIN_TOKEN)`);
  else log.info('settings console off: start with ADMIN_TOKEN=$(openssl rand -hex 32) npm start to turn it on');
}

try {
  await startStack();
} catch (err) {
  if (!stopping) {
    log.error({ err }, 'start-up failed');
    await stop('start-up failed', 1);
  }
}
