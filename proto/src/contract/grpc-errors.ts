import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { AppError, INTERNAL_MESSAGE, toAppError, type ErrorCode, type ErrorDetails } from './app-error.js';
import { timedOut, unavailable } from './outage.js';

/**
 * Trailer that marks a status as produced deliberately by one of our handlers. Statuses without it
 * come from the transport (connection refused, deadline, message too large) and are not shown as is.
 */
const MARKER = 'x-app-error';
const DETAILS = 'x-app-error-details';

const CODE_TO_STATUS: Record<ErrorCode, status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  NOT_FOUND: status.NOT_FOUND,
  ALREADY_EXISTS: status.ALREADY_EXISTS,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: status.RESOURCE_EXHAUSTED,
  UNAVAILABLE: status.UNAVAILABLE,
  DEADLINE_EXCEEDED: status.DEADLINE_EXCEEDED,
  CANCELLED: status.CANCELLED,
  UNIMPLEMENTED: status.UNIMPLEMENTED,
  INTERNAL: status.INTERNAL,
};

const STATUS_TO_CODE = new Map<number, ErrorCode>(
  Object.entries(CODE_TO_STATUS).map(([code, st]) => [st, code as ErrorCode]),
);

/** gRPC status name of a numeric status (for metrics labels and logs), e.g. 3 → "INVALID_ARGUMENT". */
export function statusName(code: number): string {
  return status[code] ?? String(code);
}

/**
 * Server side: the status object to send for any thrown value. Non-AppErrors become INTERNAL with
 * the generic message, so grpc-js never turns an internal `err.message` into a client-visible status.
 */
export function toStatusObject(err: unknown): Partial<StatusObject> {
  const appError = toAppError(err);
  const metadata = new Metadata();
  metadata.set(MARKER, '1');
  if (Object.keys(appError.details).length > 0) metadata.set(DETAILS, JSON.stringify(appError.details));
  return { code: CODE_TO_STATUS[appError.code], details: appError.message, metadata };
}

/**
 * Client side: turns a failed call into an AppError. A marked status keeps its code and message.
 * Unmarked ones come from the transport: a peer that cannot be reached (UNAVAILABLE) or a deadline
 * are outages, answered as such with our own words; anything else (a message limit, a protocol
 * error) becomes INTERNAL "internal error". The original error is kept as cause, for the logs only.
 */
export function fromServiceError(err: ServiceError | Error): AppError {
  const serviceError = err as Partial<ServiceError>;
  const trailers = serviceError.metadata;
  if (trailers && trailers.get(MARKER)[0] === '1' && typeof serviceError.code === 'number') {
    const code = STATUS_TO_CODE.get(serviceError.code) ?? 'INTERNAL';
    if (code === 'INTERNAL') return new AppError('INTERNAL', INTERNAL_MESSAGE, {}, err);
    return new AppError(code, serviceError.details ?? err.message, parseDetails(trailers.get(DETAILS)[0]), err);
  }
  if (serviceError.code === status.UNAVAILABLE) return unavailable('a backend service', err);
  if (serviceError.code === status.DEADLINE_EXCEEDED) return timedOut('a backend service', err);
  return new AppError('INTERNAL', INTERNAL_MESSAGE, {}, err);
}

function parseDetails(raw: unknown): ErrorDetails {
  if (typeof raw !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { httpStatus, field, rule, retryAfterSeconds } = parsed as Record<string, unknown>;
    return {
      ...(typeof httpStatus === 'number' ? { httpStatus } : {}),
      ...(typeof field === 'string' ? { field } : {}),
      ...(typeof rule === 'string' ? { rule } : {}),
      ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}),
    };
  } catch {
    return {};
  }
}

/** One item's error inside a batch response (the fields of e.g. registry.v1.EventError). */
interface ItemStatus {
  code: number;
  message: string;
  field: string;
  rule: string;
}

/** Server side: the per-item status for any thrown value; non-AppErrors become INTERNAL "internal error". */
export function toItemStatus(err: unknown): ItemStatus {
  const appError = toAppError(err);
  return { code: CODE_TO_STATUS[appError.code], message: appError.message, field: appError.details.field ?? '', rule: appError.details.rule ?? '' };
}

/** Client side: the AppError a per-item status stands for (an unknown or INTERNAL code shows only "internal error"). */
export function fromItemStatus(item: ItemStatus): AppError {
  const code = STATUS_TO_CODE.get(item.code) ?? 'INTERNAL';
  if (code === 'INTERNAL') return new AppError('INTERNAL', INTERNAL_MESSAGE, {}, new Error(`item failed with status ${item.code}: ${item.message}`));
  return new AppError(code, item.message, { ...(item.field ? { field: item.field } : {}), ...(item.rule ? { rule: item.rule } : {}) });
}
