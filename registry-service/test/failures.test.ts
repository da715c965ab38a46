/** Which database errors are outages (503 / 504 at the edge) and which are not (the caller decides). */
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { databaseFailure } from '../src/db/failures.js';
import { pgErrorFields } from '../src/db/pool.js';
import { query } from '../src/db/queries/query.js';

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

describe('query', () => {
  const failingWith = (err: unknown) => ({ query: () => Promise.reject(err) }) as unknown as Parameters<typeof query>[0];

  it('answers an outage as UNAVAILABLE (or DEADLINE_EXCEEDED) for every statement, keeping the cause', async () => {
    const refused = pgError('ECONNREFUSED');
    await expect(query(failingWith(refused), 'SELECT 1')).rejects.toMatchObject({ code: 'UNAVAILABLE', cause: refused });
    await expect(query(failingWith(new Error('Connection terminated unexpectedly')), 'SELECT 1')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(query(failingWith(pgError('57014')), 'SELECT 1')).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
  });

  it('still maps caller errors, and leaves the rest alone', async () => {
    await expect(query(failingWith(pgError('22001')), 'SELECT 1')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { rule: 'storable' } });
    const unique = pgError('23505');
    await expect(query(failingWith(unique), 'SELECT 1')).rejects.toBe(unique);
  });
});

describe('pgErrorFields', () => {
  it("logs an outage by the database's own words (its cause), not by the caller's message", () => {
    const shutdown = Object.assign(pgError('57P01', 'terminating connection due to administrator command'), { severity: 'FATAL' });
    expect(pgErrorFields(databaseFailure(shutdown))).toEqual({ message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' });
  });
});
