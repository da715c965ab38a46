import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { toHttpFailure } from '../src/http/failure-answer.js';

/** Shaped like http-errors (what koa-body and the router throw): status, and expose for < 500. */
const createHttpError = (status: number, message: string) => Object.assign(new Error(message), { status, expose: status < 500 });

describe('toHttpFailure', () => {
  it('maps AppErrors through the shared table, honouring httpStatus', () => {
    expect(toHttpFailure(new AppError('INVALID_ARGUMENT', 'x is required', { rule: 'required' }))).toMatchObject({ status: 400, message: 'x is required', rule: 'required' });
    expect(toHttpFailure(new AppError('INVALID_ARGUMENT', 'too big', { httpStatus: 413 }))).toMatchObject({ status: 413, message: 'too big' });
    expect(toHttpFailure(new AppError('NOT_FOUND', 'nope'))).toMatchObject({ status: 404 });
    expect(toHttpFailure(new AppError('UNAVAILABLE', 'later'))).toMatchObject({ status: 503, message: 'later' });
    expect(toHttpFailure(new AppError('DEADLINE_EXCEEDED', 'slow'))).toMatchObject({ status: 504 });
  });

  it('keeps exposed client http-errors and hides everything else', () => {
    expect(toHttpFailure(createHttpError(400, 'request aborted'))).toMatchObject({ status: 400, message: 'request aborted' });
    expect(toHttpFailure(createHttpError(415, 'Unsupported Content-Encoding: br'))).toMatchObject({ status: 415 });
    expect(toHttpFailure(createHttpError(500, 'db password leaked'))).toMatchObject({ status: 500, message: 'internal error' });
    expect(toHttpFailure(new Error('ECONNREFUSED 10.0.0.1'))).toMatchObject({ status: 500, message: 'internal error' });
    expect(toHttpFailure('a string')).toMatchObject({ status: 500, message: 'internal error' });
    expect(toHttpFailure(null)).toMatchObject({ status: 500, message: 'internal error' });
    expect(toHttpFailure(Object.assign(new Error('secret'), { status: 400, expose: false }))).toMatchObject({ status: 500 });
  });
});
