/**
 * What an error may show in a log line. pino's standard serializer copies every enumerable field,
 * and Node's HTTP parser errors carry `rawPacket` (the request's raw bytes: the bearer token and body
 * values), gRPC errors their metadata, pg errors the row values in `detail`. Only a fixed set of
 * fields is kept here, causes included; the message of a caller's error (AppError other than
 * INTERNAL) and of a JSON SyntaxError may quote the caller's input, so they are withheld.
 */
const KEPT_FIELDS = ['code', 'errno', 'syscall', 'status', 'reason'] as const;
const MAX_DEPTH = 3;
const MAX_MESSAGE = 500;

export interface SafeError {
  type: string;
  message?: string;
  stack?: string;
  field?: string;
  rule?: string;
  [key: string]: unknown;
}

export function safeError(err: unknown, depth = 0): SafeError | Record<string, unknown> | string {
  if (!(err instanceof Error)) return notAnError(err);
  const source = err as Error & Record<string, unknown>;
  const out: SafeError = { type: err.constructor?.name || err.name };
  for (const key of KEPT_FIELDS) {
    const value = source[key];
    if (typeof value === 'string' || typeof value === 'number') out[key] = typeof value === 'string' ? value.slice(0, 100) : value;
  }
  const callerError = err.name === 'AppError' && source.code !== 'INTERNAL';
  if (callerError) {
    const details = (source.details ?? {}) as { field?: unknown; rule?: unknown };
    if (typeof details.field === 'string') out.field = details.field.slice(0, 200);
    if (typeof details.rule === 'string') out.rule = details.rule;
  } else if (err instanceof SyntaxError) {
    out.message = 'SyntaxError (message withheld: it may quote the input)';
  } else {
    out.message = err.message.slice(0, MAX_MESSAGE);
    // A stack holds the message again, then frames: keep the frames only.
    if (err.stack) out.stack = err.stack.split('\n').filter((line) => /^\s+at /.test(line)).slice(0, 12).join('\n');
  }
  if (err.cause !== undefined && depth < MAX_DEPTH) out.cause = safeError(err.cause, depth + 1);
  return out;
}

/** A plain value logged as an error (e.g. pgErrorFields' summary): its own short primitive fields only. */
function notAnError(value: unknown): Record<string, unknown> | string {
  if (typeof value === 'string') return value.slice(0, MAX_MESSAGE);
  if (typeof value !== 'object' || value === null) return String(value);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string') out[key] = field.slice(0, MAX_MESSAGE);
    else if (typeof field === 'number' || typeof field === 'boolean') out[key] = field;
  }
  return out;
}

/** Node's words for a client that went away or sent a broken request (its fault, not ours). */
const CLIENT_FAULT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** True for errors a client causes by aborting or by sending bytes that are not HTTP: not worth an error line. */
export function isClientFault(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('HPE_') || CLIENT_FAULT_CODES.has(code))) return true;
  return message === 'aborted' || message === 'request aborted';
}
