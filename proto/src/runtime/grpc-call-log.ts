import type { Logger } from 'pino';
import { toAppError } from '../contract/app-error.js';
import { statusName, toStatusObject } from '../contract/grpc-errors.js';

/** Where one call is logged from: its service, method, start time and request id. */
export interface CallLogEntry {
  service: string;
  method: string;
  /** process.hrtime.bigint() when the call arrived. */
  started: bigint;
  requestId: string;
}

/** One log line per call: debug when it succeeded or was refused, error when it failed inside (INTERNAL). */
export function logCall(logger: Logger, entry: CallLogEntry, err: unknown): void {
  const { service, method, started, requestId } = entry;
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (err === undefined) {
    logger.debug({ requestId, grpcService: service, method, code: 'OK', durationMs }, 'grpc call');
    return;
  }
  const appError = toAppError(err);
  const log = { requestId, grpcService: service, method, code: statusName(toStatusObject(err).code ?? 2), durationMs, err: appError.cause ?? appError };
  if (appError.code === 'INTERNAL') logger.error(log, 'grpc call failed');
  else logger.debug(log, 'grpc call rejected');
}
