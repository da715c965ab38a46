import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@dynamic-events/proto/runtime';
import { whenResponseDone } from './context.js';
import type { Metrics } from '../metrics.js';
import { createAccessLogger } from './middleware/access-log.js';
import { createFailureAnswer } from './failure-answer.js';
import { createHttpMetricsRecorder } from './middleware/http-metrics.js';
import { requestIdOf } from './middleware/request-id.js';
import { checkHost } from './middleware/require-host.js';
import type { AllowedHosts } from './allowed-hosts.js';
import { JSON_HEADERS } from './middleware/json-headers.js';
import { closeIfDraining } from './middleware/close-when-draining.js';
import { runDynamicEventPost, type DynamicEventPost } from './routes/dynamic-events.js';

/** Returns true when it took the request; false leaves it to the Koa app. */
type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What the fast path needs beside the POST's own steps. */
interface FastPostDeps {
  logger: Logger;
  metrics: Metrics;
  /** Aborted when shutdown starts: responses then close their connection. */
  draining: AbortSignal;
  /** ALLOWED_HOSTS (undefined: any Host). */
  allowedHosts?: AllowedHosts;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_HEADER_LIST = Object.entries(JSON_HEADERS).flat();

/**
 * POST {base}/dynamic-events at its exact path, on node:http without Koa: the one route that takes
 * thousands of requests a second. Koa, its router and the middleware chain cost about 50 µs per
 * request, as much as everything else the gateway does for a small event (bench `steady` scenario:
 * the gateway's CPU per event is 312 µs on this path, 406 through Koa).
 * It gives the request what the Koa chain gives every request, through the same functions (request
 * id, access log and HTTP metrics, Host check, JSON_HEADERS, failures answered by createFailureAnswer,
 * closeIfDraining), around the POST's steps in their one order: runDynamicEventPost, which the Koa
 * route runs too. Any other spelling of the path (letter case, a trailing slash, percent-encoding)
 * and every other route stay with Koa.
 */
export function createFastPost(post: DynamicEventPost, deps: FastPostDeps): FastPath {
  const answerFailure = createFailureAnswer(deps);
  const writeAccessLog = createAccessLogger(deps);
  const recordMetrics = createHttpMetricsRecorder(deps);
  const route = () => post.path;

  /** Host check (the Koa chain's requireHost), then the POST's steps (runDynamicEventPost); never rejects. */
  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    try {
      checkHost(req, deps.allowedHosts);
      send(res, 200, requestId, JSON.stringify(await runDynamicEventPost(post, req, requestId)), undefined, deps.draining);
    } catch (err) {
      fail(res, requestId, err);
    }
  }

  /** A failure's answer, as the Koa chain's errors middleware gives it. */
  function fail(res: ServerResponse, requestId: string, err: unknown): void {
    try {
      const { status, headers, body } = answerFailure(err, { requestId, method: 'POST', path: post.path });
      send(res, status, requestId, JSON.stringify(body), headers, deps.draining);
    } catch (failure) {
      deps.logger.error({ err: failure, requestId }, 'response failed');
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' || !isExactly(req.url, post.path)) return false;
    const requestId = requestIdOf(req.headers['x-request-id']);
    whenResponseDone(res, () => res.statusCode, route, (outcome) => {
      const done = { ...outcome, requestId, method: 'POST' };
      writeAccessLog(done);
      recordMetrics(done);
    });
    void handle(req, res, requestId);
    return true;
  };
}

/** The request target is `path`, with or without a query string (the router ignores the query too). */
function isExactly(url: string | undefined, path: string): boolean {
  if (url === undefined || !url.startsWith(path)) return false;
  return url.length === path.length || url.charCodeAt(path.length) === 0x3f; // '?'
}

/**
 * Writes a JSON answer in one call, as Koa would have (same headers, Connection: close while
 * draining), unless the client is gone or an answer already started.
 */
function send(res: ServerResponse, status: number, requestId: string, json: string, extra: Record<string, string> | undefined, draining: AbortSignal): void {
  if (res.headersSent || res.writableEnded || res.socket?.writable === false) return;
  const headers = ['X-Request-Id', requestId, 'Content-Type', JSON_TYPE, 'Content-Length', String(Buffer.byteLength(json)), ...JSON_HEADER_LIST];
  if (extra) for (const name in extra) headers.push(name, extra[name]!);
  closeIfDraining(res, draining);
  res.writeHead(status, headers);
  res.end(json);
}
