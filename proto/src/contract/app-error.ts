/**
 * One error model for HTTP and gRPC: a gRPC status name, a message that is safe to show to the
 * caller, optional details, and the underlying cause (logged, never shown).
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'RESOURCE_EXHAUSTED'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'UNIMPLEMENTED'
  | 'INTERNAL';

/** Details an HTTP edge may need beyond the code, e.g. 413 or 415 for INVALID_ARGUMENT variants. */
export interface ErrorDetails {
  /** Overrides the HTTP status derived from the code (payload too large, unsupported media type). */
  httpStatus?: number;
  /** The request field the error is about, e.g. "source.device_name". */
  field?: string;
  /** The rule that failed, e.g. "required", "max-length"; low-cardinality, usable as a metric label. */
  rule?: string;
  /** When to try again (overload): the HTTP edge sends it as Retry-After. */
  retryAfterSeconds?: number;
  /** The challenge of a 401: the HTTP edge sends it as WWW-Authenticate. */
  wwwAuthenticate?: string;
}

/** The message every non-AppError failure is reduced to before it reaches a caller. */
export const INTERNAL_MESSAGE = 'internal error';

/** An error whose message may be shown to the caller as is. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.details = details;
  }
}

/** Shorthand for the most common client error: a field broke a rule. */
export function invalidArgument(field: string, rule: string, message: string): AppError {
  return new AppError('INVALID_ARGUMENT', message, { field, rule });
}

/** Anything that is not an AppError becomes INTERNAL with a generic message; the cause is kept for logs. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('INTERNAL', INTERNAL_MESSAGE, {}, err);
}

const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  INTERNAL: 500,
};

/** The HTTP status for an AppError: an explicit override, else the code's row in the table. */
export function httpStatusOf(err: AppError): number {
  return err.details.httpStatus ?? HTTP_STATUS[err.code];
}
