import { pino, type Logger } from 'pino';
import { safeError } from './safe-error.js';

export type { Logger } from 'pino';

/**
 * JSON lines on stdout, one logger per service. Authorization and image payloads never reach a
 * log, and every error logged under `err` goes through safeError: no raw request
 * bytes, token or body value, whatever produced it.
 */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: (err: unknown) => safeError(err) },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', '*.base64_image', 'base64_image', 'data'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
