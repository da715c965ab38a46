import { pino, type DestinationStream, type Logger } from 'pino';
import { safeError } from './log-safety.js';

export type { Logger } from 'pino';

/**
 * JSON lines on stdout (or `destination`, for tests), one logger per service. Errors under `err`,
 * `error` or `cause` go through safeError (a fixed set of fields: never raw request bytes, headers
 * or a caller's values); Authorization and image payloads are redacted wherever they appear.
 */
export function createLogger(service: string, level = 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: safeError, error: safeError, cause: safeError },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', '*.base64_image', 'base64_image', 'data'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
