import { onResponseDone, type GatewayMiddleware } from '../context.js';
import type { Metrics } from '../../metrics.js';
import type { RequestOutcome } from './access-log.js';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Counts a finished request in http_requests_total and http_request_duration_seconds. */
export function createHttpMetricsRecorder(deps: { metrics: Metrics }): (outcome: Omit<RequestOutcome, 'requestId'>) => void {
  // Bound children per label set: prom-client hashes a labels object on every call otherwise, a
  // measurable share of a request's cost at thousands per second. Label values are low-cardinality.
  const counters = new Map<string, { inc(): void }>();
  const histograms = new Map<string, { observe(value: number): void }>();
  const counter = (method: string, route: string, statusClass: string) => {
    const key = `${method} ${route} ${statusClass}`;
    let child = counters.get(key);
    if (!child) counters.set(key, (child = deps.metrics.httpRequests.labels({ method, route, status_class: statusClass })));
    return child;
  };
  const histogram = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let child = histograms.get(key);
    if (!child) histograms.set(key, (child = deps.metrics.httpDuration.labels({ method, route })));
    return child;
  };
  return ({ method: sent, route, status, seconds }) => {
    const method = KNOWN_METHODS.has(sent) ? sent : 'OTHER';
    counter(method, route, `${Math.floor(status / 100)}xx`).inc();
    histogram(method, route).observe(seconds);
  };
}

/** http_requests_total and http_request_duration_seconds, by method, route pattern and status class. */
export function httpMetrics(deps: { metrics: Metrics }): GatewayMiddleware {
  const record = createHttpMetricsRecorder(deps);
  return (ctx, next) => {
    onResponseDone(ctx, (outcome) => record({ ...outcome, method: ctx.method }));
    return next();
  };
}
