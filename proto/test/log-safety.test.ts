/** safeError keeps what helps an operator and drops whatever may carry request bytes or caller values. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/app-error.js';
import { isClientFault, safeError } from '../src/log-safety.js';

describe('safeError', () => {
  it('drops raw request bytes, headers and metadata, keeping type, message, code and frames', () => {
    const err = Object.assign(new Error('Parse Error: Invalid character in chunk size'), {
      code: 'HPE_INVALID_CHUNK_SIZE',
      rawPacket: Buffer.from('Authorization: Bearer secret'),
      headers: { authorization: 'Bearer secret' },
      metadata: { 'x-token': 'secret' },
    });
    const out = safeError(err);
    expect(out).toMatchObject({ type: 'Error', message: 'Parse Error: Invalid character in chunk size', code: 'HPE_INVALID_CHUNK_SIZE' });
    expect(JSON.stringify(out)).not.toContain('secret');
    expect((out as { stack: string }).stack).toMatch(/^\s+at /);
  });

  it("withholds a caller's error message (it may quote the caller's values), keeping code, field and rule", () => {
    const out = safeError(new AppError('INVALID_ARGUMENT', 'source.object_id must not contain the domain: not "secret.x"', { field: 'source.object_id', rule: 'contains-domain' }));
    expect(out).toEqual({ type: 'AppError', code: 'INVALID_ARGUMENT', field: 'source.object_id', rule: 'contains-domain' });
  });

  it('withholds JSON SyntaxError messages, which quote the input', () => {
    let thrown: unknown;
    try {
      JSON.parse('{"a": secret}');
    } catch (err) {
      thrown = err;
    }
    expect(JSON.stringify(safeError(thrown))).not.toContain('secret');
  });

  it('follows causes, with the same rules, and drops a pg error\'s row values', () => {
    const pgError = Object.assign(new Error('duplicate key value violates unique constraint "objects_pkey"'), { code: '23505', detail: 'Key (id)=(secret) already exists.' });
    const out = safeError(new AppError('INTERNAL', 'internal error', {}, pgError));
    expect(out).toMatchObject({ type: 'AppError', message: 'internal error', cause: { type: 'Error', code: '23505' } });
    expect(JSON.stringify(out)).not.toContain('secret');
  });

  it('keeps only the short primitive fields of a plain object', () => {
    expect(safeError({ message: 'connection refused', code: 'ECONNREFUSED', client: { password: 'secret' } })).toEqual({ message: 'connection refused', code: 'ECONNREFUSED' });
  });
});

describe('isClientFault', () => {
  it.each([['HPE_INVALID_CHUNK_SIZE'], ['HPE_INVALID_EOF_STATE'], ['ECONNRESET'], ['ERR_STREAM_PREMATURE_CLOSE']])('is true for %s', (code) => {
    expect(isClientFault(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  it('is false for our own failures', () => {
    expect(isClientFault(new Error('boom'))).toBe(false);
    expect(isClientFault(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
  });
});
