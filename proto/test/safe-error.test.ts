import { describe, expect, it } from 'vitest';
import { AppError } from '../src/contract/index.js';
import { createLogger, LogSafeError } from '../src/runtime/index.js';
import { safeError, safeMessage, SAFE_MESSAGE_MAX } from '../src/runtime/safe-error.js';

const SECRET = 'Bearer tok-123';
const VALUE = 'device-value-9';

describe('safeError', () => {
  it('drops rawPacket, detail, headers and metadata, keeps type, codes and Postgres names', () => {
    const err = Object.assign(new Error('Parse Error: Expected LF after chunk data'), {
      code: 'HPE_STRICT',
      rawPacket: Buffer.from(`POST / HTTP/1.1\r\nAuthorization: ${SECRET}\r\n\r\n{"d":"${VALUE}"}`),
      detail: `Key (device_name)=(${VALUE}) already exists.`,
      constraint: 'devices_pkey',
      table: 'devices',
      headers: { authorization: SECRET },
    });
    const safe = safeError(err);
    expect(safe).toMatchObject({ type: 'Error', message: 'Parse Error: Expected LF after chunk data', code: 'HPE_STRICT', constraint: 'devices_pkey', table: 'devices' });
    expect(JSON.stringify(safe)).not.toContain(VALUE);
    expect(JSON.stringify(safe)).not.toContain('tok-123');
    expect(Object.keys(safe).sort()).toEqual(['code', 'constraint', 'message', 'stack', 'table', 'type']);
  });

  it('takes quoted, bracketed and credential values out of messages, strips control characters and bounds length', () => {
    expect(safeMessage(`Unexpected token 'B', "{"source":"${VALUE}"..." is not valid JSON`)).toBe('Unexpected token … is not valid JSON');
    expect(safeMessage(`invalid input syntax for type uuid: "${VALUE}"`)).toBe('invalid input syntax for type uuid: …');
    expect(safeMessage(`Key (a)=(${VALUE})`)).toBe('Key (a)=…');
    expect(safeMessage(`auth failed: ${SECRET}`)).toBe('auth failed: Bearer …');
    expect(safeMessage('line\nbreak\u2028x')).toBe('line break x');
    expect(safeMessage('connect ECONNREFUSED 127.0.0.1:50051')).toBe('connect ECONNREFUSED 127.0.0.1:50051');
    expect(safeMessage('x '.repeat(SAFE_MESSAGE_MAX))).toHaveLength(SAFE_MESSAGE_MAX + 1);
    expect(safeMessage(undefined)).toBe('');
  });

  it('keeps stack frames but not the first stack line (it repeats the message)', () => {
    const err = new Error(`boom "${VALUE}"`);
    const safe = safeError(err);
    expect(safe.stack).toMatch(/^ {4}at /);
    expect(safe.stack).not.toContain(VALUE);
  });

  it('follows causes a few levels, sanitised the same way, and survives odd values', () => {
    const inner = Object.assign(new Error(`db said "${VALUE}"`), { code: '22P02' });
    const outer = new AppError('INTERNAL', 'internal error', {}, inner);
    expect(safeError(outer)).toMatchObject({ type: 'AppError', message: 'internal error', cause: { message: 'db said …', code: '22P02' } });
    expect(safeError('a string')).toEqual({ type: 'string', message: '' });
    expect(safeError(null)).toEqual({ type: 'object', message: '' });
    const loop: { message: string; cause?: unknown } = { message: 'loop' };
    loop.cause = loop;
    expect(JSON.stringify(safeError(loop)).length).toBeLessThan(1000);
  });

  it('logs a LogSafeError (a configuration report we wrote) whole, quotes included', () => {
    const report = `invalid configuration: LOG_LEVEL must be one of "debug", "info"; ${'PORT must be an integer; '.repeat(10)}`;
    expect(safeError(new LogSafeError(report)).message).toBe(report);
  });

  it('is the err serializer of every service logger', () => {
    const lines: string[] = [];
    const logger = createLogger('test', 'info', { write: (line: string) => lines.push(line) });
    logger.error({ err: Object.assign(new Error('x'), { rawPacket: Buffer.from(SECRET) }) }, 'failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('rawPacket');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', err: { type: 'Error', message: 'x' } });
  });
});

describe('safeError, field by field', () => {
  it('keeps a message of exactly SAFE_MESSAGE_MAX characters whole, and cuts one more', () => {
    expect(safeMessage('m'.repeat(SAFE_MESSAGE_MAX))).toBe('m'.repeat(SAFE_MESSAGE_MAX));
    expect(safeMessage('m'.repeat(SAFE_MESSAGE_MAX + 1))).toBe(`${'m'.repeat(SAFE_MESSAGE_MAX)}…`);
  });

  it('keeps at most 8 frames, each cut at 300 characters with control characters blanked', () => {
    const frames = Array.from({ length: 12 }, (_, i) => `    at f${i} (/app/x.js:${i}:1)`);
    const err = { message: 'm', stack: [`Error: m "${SECRET}"`, `    at long (${'p'.repeat(400)})`, '    at cr (/a\r\nb.js:1:1)', ...frames].join('\n') };
    const stack = safeError(err).stack!.split('\n');
    expect(stack).toHaveLength(8);
    expect(stack[0]).toBe(`    at long (${'p'.repeat(300 - 13)}`);
    expect(stack[1]).toBe('    at cr (/a '); // the CR blanked; the rest of that line is no frame
    expect(stack.slice(2)).toEqual(frames.slice(0, 6));
    expect(safeError({ message: 'm', stack: '    at x (/a\u0007b.js:1:1)' }).stack).toBe('    at x (/a b.js:1:1)');
  });

  it('leaves the stack out when it holds no frame', () => {
    expect(Object.keys(safeError({ message: 'm', stack: 'Error: m' }))).toEqual(['type', 'message']);
    expect(Object.keys(safeError({ message: 'm', stack: 42 }))).toEqual(['type', 'message']);
  });

  it('names the type by a sane name, else the constructor, else Object', () => {
    class PgLikeError extends Error {}
    expect(safeError(Object.assign(new PgLikeError('x'), { name: 'has "quotes"' })).type).toBe('PgLikeError');
    expect(safeError(Object.assign(new PgLikeError('x'), { name: 7 })).type).toBe('PgLikeError');
    expect(safeError(new PgLikeError('x')).type).toBe('Error');
    expect(safeError(Object.assign(Object.create(null) as object, { message: 'm' })).type).toBe('Object');
    expect(safeError({ message: 'm', constructor: { name: 'bad name!' } }).type).toBe('Object');
  });

  it('keeps sane string codes and numeric codes, and drops the rest', () => {
    expect(safeError({ message: 'm', code: 'ERR_X.1-a' }).code).toBe('ERR_X.1-a');
    expect(safeError({ message: 'm', code: 14 }).code).toBe(14);
    for (const code of ['has space', 'x'.repeat(65), '', { nested: 1 }, true]) expect(safeError({ message: 'm', code })).not.toHaveProperty('code');
  });

  it('keeps syscall, status and Postgres names only when they are plain names or numbers', () => {
    expect(safeError({ message: 'm', syscall: 'connect', status: 413, column: 'device_name' })).toMatchObject({ syscall: 'connect', status: 413, column: 'device_name' });
    const dropped = safeError({ message: 'm', syscall: 'connect to "x"', status: '413', column: 'a b' });
    expect(Object.keys(dropped)).toEqual(['type', 'message']);
  });

  it('follows exactly three causes', () => {
    const chain = ['0', '1', '2', '3', '4'].reduceRight<unknown>((cause, n) => ({ message: n, cause }), undefined);
    const safe = safeError(chain);
    expect(safe.cause?.cause?.cause).toMatchObject({ message: '3' });
    expect(safe.cause?.cause?.cause).not.toHaveProperty('cause');
  });

  it('names a LogSafeError, blanks its control characters and bounds it at 4000 characters', () => {
    expect(new LogSafeError('x').name).toBe('LogSafeError');
    expect(safeError(new LogSafeError('a\nb')).type).toBe('LogSafeError');
    expect(safeError(new LogSafeError('a\nb')).message).toBe('a b');
    expect(safeError(new LogSafeError('r'.repeat(5000))).message).toHaveLength(4000);
  });
});
