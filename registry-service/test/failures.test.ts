/** Which database errors are outages (503 / 504 at the edge) and which are not (the caller decides). */
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { databaseFailure } from '../src/db/failures.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('databaseFailure', () => {
  it.each([
    ['connection failure (08006)', pgError('08006')],
    ['admin shutdown (57P01)', pgError('57P01')],
    ['crash shutdown (57P02)', pgError('57P02')],
    ['cannot connect now (57P03)', pgError('57P03')],
    ['too many connections (53300)', pgError('53300')],
    ['connection refused', pgError('ECONNREFUSED')],
    ['reset, as a cause', new Error('wrapped', { cause: pgError('ECONNRESET') })],
    ['refused on every address', new AggregateError([pgError('ECONNREFUSED'), pgError('ECONNREFUSED')])],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['no pooled connection in time', new Error('timeout exceeded when trying to connect')],
  ])('makes %s UNAVAILABLE, saying only that the store is down', (_name, err) => {
    const failure = databaseFailure(err);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', message: 'the event store is unavailable; retry later', details: { retryAfterSeconds: 1 } });
    expect(failure?.cause).toBe(err);
  });

  it('makes a statement timeout DEADLINE_EXCEEDED', () => {
    expect(databaseFailure(pgError('57014'))).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a bug', new TypeError('x is undefined')],
    ['an AppError already decided', new AppError('INVALID_ARGUMENT', 'bad')],
    ['a value that is not an error', 'boom'],
  ])('leaves %s alone', (_name, err) => {
    expect(databaseFailure(err)).toBeUndefined();
  });
});
