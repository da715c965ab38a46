/**
 * The one sanitiser every logged error goes through (it is the `err` serializer of createLogger).
 * Errors carry caller data in many places: Node's HTTP parser attaches every raw byte of the
 * request (`rawPacket`: the Authorization header and the body), JSON.parse and Postgres quote the
 * offending value in their message, pg adds `detail` ("Key (device_name)=(…)"), gRPC errors carry
 * metadata. So the log keeps an allow-list only: the error's type, machine codes, the message with
 * its values taken out (see safeMessage), and stack frames (file positions, never the message).
 */
interface SafeError {
  type: string;
  message: string;
  code?: string | number;
  /** Node system errors: the syscall that failed (connect, read…). */
  syscall?: string;
  /** Postgres: the constraint, table or column named by the error (schema names, not values). */
  constraint?: string;
  table?: string;
  column?: string;
  /** HTTP status an http-errors error carried. */
  status?: number;
  /** Stack frames only ("at file:line"), at most MAX_FRAMES. */
  stack?: string;
  cause?: SafeError;
}

/** Longest message kept: room for a message of our own naming a long path, not for a body. */
export const SAFE_MESSAGE_MAX = 500;
/** Longest message kept for a LogSafeError (a configuration report naming every bad variable). */
const LOG_SAFE_MESSAGE_MAX = 4000;

/**
 * An error whose message we wrote ourselves from no caller data (e.g. the configuration report,
 * which names variables, never their values): logged whole.
 */
export class LogSafeError extends Error {
  override readonly name = 'LogSafeError';
}
const MAX_FRAMES = 8;
const MAX_CAUSES = 3;
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;
const NAME = /^[A-Za-z0-9_$.-]{1,64}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const GAP = '…';
/** Longest part of a message that is looked at: keeps every pattern below cheap on a huge message. */
const SCANNED_MAX = 4 * SAFE_MESSAGE_MAX;

/**
 * Secrets that can stand unquoted in a message, each replaced by GAP: a credential after an auth
 * scheme, a token secret (`dhe_…`), the user and password of a URL, a value after `=` (a query
 * parameter, Postgres' "Key (a)=(b)"), and any long opaque run of letters and digits (a key or a
 * token of another shape).
 */
const SECRETS: readonly [RegExp, (match: string, ...groups: string[]) => string][] = [
  [/\b(bearer|basic)\b[\s:=]*[^\s,;]*/gi, (_, scheme: string) => `${scheme} ${GAP}`],
  [/\bdhe_[A-Za-z0-9_-]*/g, () => GAP],
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, (_, scheme: string) => `${scheme}${GAP}@`],
  [/=\s*(\([^)]*\)?|[^\s,;)]+)/g, () => `=${GAP}`],
  [/[A-Za-z0-9_+-]{32,}={0,2}/g, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? GAP : run)],
];
/** Where a quoted or bracketed value may open or close; an apostrophe inside a word ("can't") is prose. */
const OPENS = /["`{[<]|(?<![A-Za-z])'|'(?![A-Za-z])/g;
const CLOSES = /["`}\]>]|(?<![A-Za-z])'|'(?![A-Za-z])/g;

/**
 * Quoted and bracketed values (JSON.parse and Postgres quote the offending input; JSON nests quotes
 * of every kind) go as one span: from the first opening quote or bracket to the last closing one,
 * or to the end when none closes. Parentheses are prose ("(pid 42)") and stay.
 */
function withoutQuoted(message: string): string {
  const first = message.search(OPENS);
  if (first === -1) return message;
  const rest = message.slice(first + 1);
  const last = [...rest.matchAll(CLOSES)].at(-1)?.index;
  return `${message.slice(0, first)}${GAP}${last === undefined ? '' : rest.slice(last + 1)}`;
}

/**
 * The message whole but for its values: secrets (SECRETS) and every quoted or bracketed part become
 * "…", control characters become spaces, and the result is bounded at SAFE_MESSAGE_MAX.
 */
export function safeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  // A cut message loses its last word too: it may be the first half of a secret.
  const scanned = message.length > SCANNED_MAX ? `${message.slice(0, SCANNED_MAX).replace(/\S*$/, '')}${GAP}` : message;
  const unsecret = SECRETS.reduce((text, [pattern, replace]) => text.replace(pattern, replace), scanned);
  const kept = withoutQuoted(unsecret).replace(CONTROL, ' ');
  return kept.length > SAFE_MESSAGE_MAX ? `${kept.slice(0, SAFE_MESSAGE_MAX)}${GAP}` : kept;
}

/** Stack frames only: the first line repeats the (unsanitised) message, frames name files. */
function framesOf(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const frames = stack
    .split('\n')
    .filter((line) => line.startsWith('    at '))
    .slice(0, MAX_FRAMES)
    .map((line) => line.slice(0, 300).replace(CONTROL, ' '));
  return frames.length > 0 ? frames.join('\n') : undefined;
}

function nameOf(value: unknown): string | undefined {
  return typeof value === 'string' && NAME.test(value) ? value : undefined;
}

/** Reduces any thrown value to the fields above; never throws. */
export function safeError(err: unknown, depth = 0): SafeError {
  if (typeof err !== 'object' || err === null) return { type: typeof err, message: '' };
  const e = err as Record<string, unknown>;
  const type = nameOf(e.name) ?? nameOf((e.constructor as { name?: unknown } | undefined)?.name) ?? 'Object';
  const message = err instanceof LogSafeError ? err.message.replace(CONTROL, ' ').slice(0, LOG_SAFE_MESSAGE_MAX) : safeMessage(e.message);
  const out: SafeError = { type, message };
  if ((typeof e.code === 'string' && CODE.test(e.code)) || typeof e.code === 'number') out.code = e.code;
  const syscall = nameOf(e.syscall);
  if (syscall) out.syscall = syscall;
  for (const key of ['constraint', 'table', 'column'] as const) {
    const value = nameOf(e[key]);
    if (value) out[key] = value;
  }
  if (typeof e.status === 'number') out.status = e.status;
  const stack = framesOf(e.stack);
  if (stack) out.stack = stack;
  if (e.cause !== undefined && depth < MAX_CAUSES) out.cause = safeError(e.cause, depth + 1);
  return out;
}
