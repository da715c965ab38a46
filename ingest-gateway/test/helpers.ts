/**
 * Test support: the real Koa app over a real http.Server on 127.0.0.1:0, with fake registry and
 * media clients (plain objects implementing the client interfaces) that record every call. The
 * fakes and the example body live in their own modules; this one re-exports them so tests import
 * from one place.
 */
import type { Server } from 'node:http';
import { createLogger, createMetricsServer, listenHttp } from '@dynamic-events/proto/runtime';
import { createRequestHandler, type AppDeps } from '../src/http/app.js';
import { createHttpServer, handleClientErrors } from '../src/http/http-server.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import { loadConfig } from '../src/config.js';
import { fakeMedia, type FakeMedia } from './fake-media.js';
import { fakeRegistry, type FakeRegistry } from './fake-registry.js';

export { mutate, validBody } from './bodies.js';
export { fakeMedia, PNG_SIGNATURE, TINY_PNG, type FakeMedia } from './fake-media.js';
export { CREATED_AT, fakeRegistry, unimplementedReads, withLane, type FakeRegistry } from './fake-registry.js';

export const SEGMENT = 'platform';
export const API = `/api/${SEGMENT}/dh`;

export interface TestGateway {
  url: string;
  registry: FakeRegistry;
  media: FakeMedia;
  metrics: Metrics;
  /** The metrics server's /metrics (its own port, as in production). */
  metricsUrl: string;
  draining: AbortController;
  logs: Array<Record<string, unknown>>;
  /** The same lines as written (to search for secrets and sizes). */
  rawLogs: string[];
  server: Server;
  close(): Promise<void>;
  /** POST a JSON value (or raw string) to the dynamic-events endpoint. */
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }>;
}

export interface GatewayOptions {
  token?: string;
  /** ADMIN_TOKEN (the admin API is served only with `tokens` too). */
  adminToken?: string;
  /** The TokenService client and the token copy (fakes in unit tests). */
  tokens?: AppDeps['tokens'];
  /** The registry's WebhookService (the webhook admin API is served only with it and ADMIN_TOKEN). */
  webhooks?: AppDeps['webhooks'];
  /** Tokens' rate limits (none by default). */
  limitRate?: AppDeps['limitRate'];
  maxBodyBytes?: number;
  maxImageBytes?: number;
  /** MAX_INFLIGHT_BODY_BYTES (default 32 MiB). */
  maxInflightBodyBytes?: number;
  /** The settings console's build (served with the admin API; omitted: answered as not built). */
  console?: AppDeps['console'];
  /** What SSE responses may hold for their clients (default: the production bounds). */
  sseBudget?: AppDeps['sseBudget'];
  /** ALLOWED_HOSTS (default: any Host). */
  allowedHosts?: AppDeps['config']['allowedHosts'];
  /** MAX_STREAMS, MAX_STREAMS_PER_TOKEN, MAX_STREAMS_PER_CLIENT (default: config.ts's defaults). */
  streamCaps?: Pick<AppDeps['config'], 'maxStreams' | 'maxStreamsPerToken' | 'maxStreamsPerClient'>;
}

/** config.ts's defaults, for what a test does not set. */
const DEFAULTS = loadConfig({ REGISTRY_INTERNAL_TOKEN: 'test-internal-credential-0123456789abcdef' });

/** Starts the app with fakes on 127.0.0.1:0; logs are captured (not printed) for assertions. */
export async function startGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const registry = fakeRegistry();
  const media = fakeMedia();
  const draining = new AbortController();
  const logs: Array<Record<string, unknown>> = [];
  const rawLogs: string[] = [];
  // The production logger (its error serializer and redaction), writing into `logs` and `rawLogs`.
  const logger = createLogger('ingest-gateway', 'debug', {
    write: (line: string) => {
      rawLogs.push(line);
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const metricsServer = createMetricsServer(logger);
  const metricsPort = await metricsServer.listen(0, '127.0.0.1');
  const metrics = createMetrics(metricsServer.registry);
  const deps: AppDeps = {
    config: {
      platformSegment: SEGMENT,
      publicBaseUrl: 'http://localhost:8080',
      dynamicEventsToken: options.token,
      adminToken: options.adminToken,
      maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
      maxImageBytes: options.maxImageBytes ?? 10 * 1024 * 1024,
      maxInflightBodyBytes: options.maxInflightBodyBytes ?? 32 * 1024 * 1024,
      allowedHosts: options.allowedHosts,
      maxStreams: options.streamCaps?.maxStreams ?? DEFAULTS.maxStreams,
      maxStreamsPerToken: options.streamCaps?.maxStreamsPerToken ?? DEFAULTS.maxStreamsPerToken,
      maxStreamsPerClient: options.streamCaps?.maxStreamsPerClient ?? DEFAULTS.maxStreamsPerClient,
    },
    logger,
    registry,
    media,
    metrics,
    tokens: options.tokens,
    webhooks: options.webhooks,
    limitRate: options.limitRate,
    console: options.console,
    draining: draining.signal,
    probeDeadlineMs: 200,
    sseBudget: options.sseBudget,
  };
  const server = createHttpServer(createRequestHandler(deps), { requestTimeoutMs: 60_000, headersTimeoutMs: 10_000 });
  handleClientErrors(server, logger);
  const port = await listenHttp(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    registry,
    media,
    metrics,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    draining,
    logs,
    rawLogs,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await metricsServer.close();
    },
    async post(body, headers = {}) {
      const response = await fetch(`${url}${API}/dynamic-events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, headers: response.headers };
    },
  };
}
