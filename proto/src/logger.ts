import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** JSON lines on stdout, one logger per service; Authorization and image payloads never reach a log. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', '*.base64_image', 'base64_image', 'data'],
      censor: '[redacted]',
    },
  });
}
