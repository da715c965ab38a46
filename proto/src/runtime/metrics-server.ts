import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A service's Prometheus endpoint on its own port: `GET /metrics` in the text exposition format.
 * Kept off the public port so an ingress never exposes it, and plain node:http so a scrape still
 * answers when the service's main server is saturated or draining.
 */
export interface MetricsServer {
  readonly registry: Registry;
  /** Binds and resolves with the port (0 picks a free one). */
  listen(port: number, host: string): Promise<number>;
  /** Closes the listener and its keep-alive sockets; the last thing a service stops, so the final scrape sees the drain. */
  close(): Promise<void>;
}

/**
 * prom-client's default gauges whose names end in `_total`, which Prometheus reserves for counters
 * (`promtool check metrics` refuses them). Each is the sum of the labelled gauge of the same stem,
 * kept: `sum(nodejs_active_handles)` is the handle total.
 */
const DROPPED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/** The default process metrics (CPU, memory, event loop lag, GC, handles by type), named as Prometheus asks. */
function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name);
}

/** A registry with the default process metrics and its server. */
export function createMetricsServer(logger: Logger, registry = new Registry()): MetricsServer {
  registerProcessMetrics(registry);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return reply(res, 404, 'application/json', JSON.stringify({ error: `no route for ${path}: metrics are at /metrics` }));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(res, 405, 'application/json', JSON.stringify({ error: `method ${req.method} not allowed on /metrics: use GET` }));
    }
    registry.metrics().then(
      (text) => reply(res, 200, registry.contentType, text, req.method === 'HEAD'),
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        reply(res, 500, 'application/json', JSON.stringify({ error: 'internal error' }));
      },
    );
  });
  // Prometheus scrapes every 15-60 s: keep its connection across scrapes (close() cuts it anyway).
  server.keepAliveTimeout = 65_000;

  return {
    registry,
    listen: (port, host) => listenHttp(server, port, host),
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Listens and resolves with the bound port (0 picks a free one); a bind failure rejects. */
export function listenHttp(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** HEAD gets the headers GET would (Content-Length included) and no body. */
function reply(res: ServerResponse, status: number, type: string, body: string, head = false): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(head ? undefined : body);
}
