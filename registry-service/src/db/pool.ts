import { AppError } from '@dynamic-events/proto';
import pg from 'pg';
import type { Logger } from 'pino';

/** Anything that runs a query: the pool itself or a client inside a transaction. */
export type Queryable = pg.Pool | pg.ClientBase;

/** SQLSTATE "terminating connection due to administrator command" (server shutdown or pg_terminate_backend). */
const ADMIN_SHUTDOWN = '57P01';

interface PoolOptions {
  connectionString: string;
  max: number;
  logger: Logger;
  /** How long a request waits for a connection before failing (no request may hang on a dead database). */
  connectionTimeoutMs?: number;
  /** Told of each connection: awaited before a new one is handed out, and when one is dropped (server-runs.ts). */
  connections?: { connected(client: pg.ClientBase): Promise<void>; removed(client: pg.ClientBase): void };
}

/** A pg pool that fails fast when the database is unreachable and never crashes on idle-client errors. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    // Bounds a stuck statement or a transaction left open by a bug; generous next to real queries.
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'registry-service',
    // pg-pool awaits the promise (its types say void).
    onConnect: options.connections?.connected,
  });
  const { connections } = options;
  if (connections) pool.on('remove', (client) => connections.removed(client));
  // A checked-out client whose server connection dies emits 'error' besides failing its query (the
  // query's failure carries the outage); the pool listens only while a client is idle, so without
  // this listener a connection lost while checked out (a health probe, a transaction) ends the process.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // An idle client whose server connection dies emits here; without a listener the process would exit.
  pool.on('error', (err) => {
    const fields = pgErrorFields(err);
    // end() resolves once Terminate is sent; a Postgres stopping right after (the embedded one at
    // shutdown) may still tell those sockets it is terminating them. That is the expected end.
    if (pool.ending && fields.code === ADMIN_SHUTDOWN) options.logger.debug({ error: fields }, 'database connection closed by server shutdown');
    else options.logger.warn({ error: fields }, 'idle database connection failed');
  });
  return pool;
}

/** The parts of a database error worth a log line. */
interface PgErrorFields {
  message: string;
  code?: string;
  severity?: string;
}

/**
 * Message, SQLSTATE and severity of a pg (or socket) error, to log under `error`. Never log the error
 * object itself: pg-pool attaches the whole pg Client to idle-client errors, and pino would serialise
 * it (kilobytes per line, connection parameters included). Not under `err` either: pino's error
 * serialiser would add an empty stack and a misleading type to this plain object.
 */
export function pgErrorFields(err: unknown): PgErrorFields {
  // The query helper wraps outages (AppError UNAVAILABLE): the database's own words are the cause.
  if (err instanceof AppError && err.cause !== undefined) return pgErrorFields(err.cause);
  if (!(err instanceof Error)) return { message: String(err) };
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return {
    message: err.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof severity === 'string' ? { severity } : {}),
  };
}
