import { AppError, isNetworkFailure, unavailable } from '@dynamic-events/proto';

/** What callers are told is down. */
const STORE = 'the image store';

/** S3 answers that mean "busy or down, retry" (the request itself was fine). */
const S3_RETRYABLE = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'RequestTimeTooSkewed']);
/** A disk that is full, read-only or failing: the filesystem store cannot take images for now. */
const DISK_DOWN = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/** The outage a storage error stands for (UNAVAILABLE), or undefined when it is not one. */
export function storageFailure(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (S3_RETRYABLE.has(code) || DISK_DOWN.has(code))) return unavailable(STORE, err);
  return isNetworkFailure(err) ? unavailable(STORE, err) : undefined;
}

/** Rethrows a storage error as the outage it stands for, or as it is. */
export function rethrowStorageFailure(err: unknown): never {
  throw storageFailure(err) ?? err;
}
