/**
 * Failures the HTTP client caused by going away or by breaking HTTP framing: not ours to alert
 * on. The request's own log line (status 499, or the 400 it got) is all that is logged for them.
 */
const GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ECANCELED']);

/** True for an abort or a malformed-HTTP error from Node's parser (codes HPE_*), or raw-body's "request aborted". */
export function isClientFault(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, type, message } = err as { code?: unknown; type?: unknown; message?: unknown };
  if (typeof code === 'string' && (GONE_CODES.has(code) || code.startsWith('HPE_'))) return true;
  return type === 'request.aborted' || message === 'aborted';
}

/** The status and message answered when Node's parser refuses a request before Koa sees it. */
export function clientErrorAnswer(err: unknown): { status: number; message: string } {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'request headers are too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'request timed out' };
  return { status: 400, message: 'malformed HTTP request' };
}

/** Responses whose socket was answered directly by the clientError handler, with that status. */
const answeredOnSocket = new WeakMap<object, number>();

/** Records that `res`'s client got `status` from the clientError handler (written on the socket). */
export function markAnsweredOnSocket(res: object, status: number): void {
  answeredOnSocket.set(res, status);
}

/** The status the clientError handler answered for `res`'s request, if it did: what its log line must say. */
export function answeredOnSocketStatus(res: object): number | undefined {
  return answeredOnSocket.get(res);
}
