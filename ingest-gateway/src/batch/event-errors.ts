import { AppError } from '@dynamic-events/proto';

/**
 * An event's refusal as the batch answers it: its field, and the message that names it, qualified
 * with `events[i].` ("events[1].source.device_name must not be empty"); `body` (the event itself)
 * becomes `events[i]`. Errors that name no field (a token's rate, an outage) are answered as they are.
 */
export function inBatch(err: unknown, index: number): unknown {
  if (!(err instanceof AppError) || err.details.field === undefined) return err;
  const field = err.details.field;
  const at = field === 'body' ? `events[${index}]` : `events[${index}].${field}`;
  const message = err.message.startsWith(field) ? `${at}${err.message.slice(field.length)}` : `${at}: ${err.message}`;
  return new AppError(err.code, message, { ...err.details, field: at }, err.cause ?? err);
}
