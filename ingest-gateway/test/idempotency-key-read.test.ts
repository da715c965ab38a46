/** readIdempotencyKey on its own: what it hands on for each header shape (the HTTP tests cover the wiring). */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readIdempotencyKey } from '../src/ingest/idempotency-key.js';

/** The two views Node gives of a header: joined (headers) and one entry per line (headersDistinct). */
function request(lines: string[]): IncomingMessage {
  const headers = lines.length === 0 ? {} : { 'idempotency-key': lines.join(', ') };
  const headersDistinct = lines.length === 0 ? {} : { 'idempotency-key': lines };
  return { headers, headersDistinct } as unknown as IncomingMessage;
}

const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('readIdempotencyKey', () => {
  it('is undefined without the header', () => {
    expect(readIdempotencyKey(request([]), '{}')).toBeUndefined();
  });

  it('hands on the key and the sha256 of the body text as UTF-8', () => {
    expect(readIdempotencyKey(request(['k-1']), '{"a":"é"}')).toEqual({ key: 'k-1', requestHash: sha256('{"a":"é"}') });
    expect(sha256('{"a":"é"}')).not.toBe(createHash('sha256').update('{"a":"é"}', 'latin1').digest('hex'));
  });

  it('refuses the header sent twice, even with equal values', () => {
    for (const lines of [['a', 'b'], ['a', 'a']]) {
      expect(() => readIdempotencyKey(request(lines), '{}')).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'Idempotency-Key header must be sent once', details: { field: 'Idempotency-Key', rule: 'single' } }),
      );
    }
  });

  it('applies the shared rules to the one value', () => {
    expect(() => readIdempotencyKey(request(['']), '{}')).toThrow(expect.objectContaining({ details: { field: 'Idempotency-Key', rule: 'required' } }));
    expect(() => readIdempotencyKey(request(['k'.repeat(256)]), '{}')).toThrow('Idempotency-Key header must be at most 255 characters');
  });
});
