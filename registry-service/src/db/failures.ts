import { AppError, isNetworkFailure, timedOut, unavailable } from '@dynamic-events/proto';

/** What callers are told is down: the store, not how it is built. */
const STORE = 'the event store';

/**
 * SQLSTATEs of a database that is going away, not ready, or full of connections: class 08
 * (connection exception), 57P01–57P03 (shutdown, crash shutdown, cannot connect now), 53300.
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** query_canceled: statement_timeout (or a cancel) stopped the statement. */
const STATEMENT_TIMEOUT = '57014';

/** pg's own words for a connection it lost or could not get in time (no code on these errors). */
const LOST_CONNECTION = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i;

/**
 * The outage a database error stands for (UNAVAILABLE, or DEADLINE_EXCEEDED for a statement
 * timeout), or undefined when it is not one (a constraint, a bug: the caller decides).
 */
export function databaseFailure(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined;
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code === STATEMENT_TIMEOUT) return timedOut(STORE, err);
  if (typeof code === 'string' && UNAVAILABLE_STATES.test(code)) return unavailable(STORE, err);
  if (isNetworkFailure(err) || (typeof message === 'string' && LOST_CONNECTION.test(message))) return unavailable(STORE, err);
  return undefined;
}
