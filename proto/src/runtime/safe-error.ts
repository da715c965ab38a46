/**
 * The one sanitiser every logged error goes through (it is the `err` serializer of createLogger).
 * Errors carry caller data in many places: Node's HTTP parser attaches every raw byte of the
 * request (`rawPacket`: the Authorization header and the body), JSON.parse and Postgres quote the
 * offending value in their message, pg adds `detail` ("Key (device_name)=(…)"), gRPC errors carry
 * metadata. So the log keeps an allow-list only: the error's type, machine codes, the message cut
 * before the first quoted or bracketed part, and stack frames (file positions, never the message).
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

/** Longest message kept; causes worth logging are short. */
export const SAFE_MESSAGE_MAX = 160;
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
/** A value usually starts at a quote or a bracket ("Unexpected token 'x', "{…" is not valid JSON"; "Key (a)=(b)"). */
const VALUE_START = /["'`{[(=<]|bearer|basic /i;
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;
const NAME = /^[A-Za-z0-9_$.-]{1,64}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** The part of a message that holds no caller value: cut before the first quote or bracket, bounded. */
export function safeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  const cut = message.search(VALUE_START);
  const kept = (cut === -1 ? message : `${message.slice(0, cut)}…`).replace(CONTROL, ' ');
  return kept.length > SAFE_MESSAGE_MAX ? `${kept.slice(0, SAFE_MESSAGE_MAX)}…` : kept;
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
