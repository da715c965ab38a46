import { describe, expect, it } from 'vitest';
import { AppError, createLogger, LogSafeError, safeError, safeMessage, SAFE_MESSAGE_MAX } from '../src/index.js';

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

  it('cuts messages before the first quoted or bracketed part, strips control characters and bounds length', () => {
    expect(safeMessage(`Unexpected token 'B', "{"source":"${VALUE}"..." is not valid JSON`)).toBe('Unexpected token …');
    expect(safeMessage(`invalid input syntax for type uuid: "${VALUE}"`)).toBe('invalid input syntax for type uuid: …');
    expect(safeMessage(`Key (a)=(${VALUE})`)).toBe('Key …');
    expect(safeMessage(`auth failed: ${SECRET}`)).toBe('auth failed: …');
    expect(safeMessage('line\nbreak\u2028x')).toBe('line break x');
    expect(safeMessage('connect ECONNREFUSED 127.0.0.1:50051')).toBe('connect ECONNREFUSED 127.0.0.1:50051');
    expect(safeMessage('x'.repeat(500))).toHaveLength(SAFE_MESSAGE_MAX + 1);
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
