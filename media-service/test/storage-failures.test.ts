/** Which storage errors are outages (503 at the edge) and which are not. */
import { AppError } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { storageFailure } from '../src/storage/failures.js';

const coded = (code: string) => Object.assign(new Error('x'), { code });

describe('storageFailure', () => {
  it.each(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'ENOSPC', 'EROFS', 'EIO', 'ECONNREFUSED', 'ETIMEDOUT'])(
    'makes %s UNAVAILABLE',
    (code) => {
      expect(storageFailure(coded(code))).toMatchObject({ code: 'UNAVAILABLE', message: 'the image store is unavailable; retry later' });
    },
  );

  it.each([['NoSuchKey'], ['AccessDenied'], ['EACCES']])('leaves %s alone (not an outage: a bug or a setting)', (code) => {
    expect(storageFailure(coded(code))).toBeUndefined();
  });

  it('leaves AppErrors alone', () => {
    expect(storageFailure(new AppError('NOT_FOUND', 'image not found'))).toBeUndefined();
  });
});
