/**
 * A logged message stays whole, prose, parentheses and paths included; only its values go: secrets
 * that stand unquoted (credentials, token secrets, URL passwords, `=` values, long opaque runs) and
 * every quoted or bracketed part, which is where parsers and Postgres put the caller's input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeError, safeMessage, SAFE_MESSAGE_MAX } from '../src/runtime/safe-error.js';

const MARK = 'QQVALUE';

describe('safeMessage keeps a message of our own whole', () => {
  it('keeps the owner-file refusal with its parenthesis, pid and advice', () => {
    const message = 'DATA_DIR /tmp/de-stack-a/.data is in use by another stack (pid 4242); give each instance its own DATA_DIR';
    expect(safeMessage(message)).toBe(message);
    expect(safeError(new Error(message)).message).toBe(message);
  });

  it('keeps addresses, paths, apostrophes inside words and plain numbers', () => {
    for (const message of [
      'connect ECONNREFUSED 127.0.0.1:50051',
      "the gateway can't reach the registry at registry:50051 (deadline 2000 ms)",
      'ENOENT: no such file or directory, open /srv/data/media/ab/cd',
      'migration 0007_tokens.sql failed (transaction rolled back)',
      'offset 1234567890123456789012345678901234 is out of range',
    ]) {
      expect(safeMessage(message)).toBe(message);
    }
  });
});

describe('safeMessage takes the secrets out', () => {
  it.each([
    ['a token secret', `token dhe_${'Ab3_-'.repeat(9)} was refused`, 'token … was refused'],
    ['a bearer credential', 'header was Bearer abc.def-123, refused', 'header was Bearer …, refused'],
    ['a basic credential', 'Basic dXNlcjpwYXNz rejected', 'Basic … rejected'],
    ['a credential after a colon and a space', 'scheme basic: dXNlcjpwYXNz rejected', 'scheme basic … rejected'],
    ['a URL password', 'connect to postgres://app:hunter2@db:5432/events failed', 'connect to postgres://…@db:5432/events failed'],
    ['a query value', 'GET /v1/watch?token=hunter2&x=1 failed', 'GET /v1/watch?token=… failed'],
    ['a Postgres key value', 'Key (device_name)=(hunter2 x) already exists.', 'Key (device_name)=… already exists.'],
    ['a long opaque run', `admin token 9f${'a1'.repeat(20)} is wrong`, 'admin token … is wrong'],
    ['a quoted value', 'value "hunter2" is not a uuid', 'value … is not a uuid'],
    ['an unclosed quote', 'value "hunter2 is not', 'value …'],
    ["a quote followed by an apostrophe in a word", "value 'hunter2' can't be used", "value … can't be used"],
    ['a bracketed value', 'bad input [hunter2] here', 'bad input … here'],
  ])('%s', (_, message, expected) => {
    expect(safeMessage(message)).toBe(expected);
    expect(safeMessage(message)).not.toMatch(/hunter2|dhe_A|Ab3|9fa1|dXNlcjpwYXNz|abc\.def/);
  });

  it('never keeps any part of a value JSON.parse quotes, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80, unit: 'grapheme' }), fc.constantFrom('}', 'x', '', ',"', "'"), (value, tail) => {
        const body = `{"device":${JSON.stringify(`${MARK}${value}`)}${tail}`;
        let message = '';
        try {
          JSON.parse(body);
        } catch (err) {
          message = (err as Error).message;
        }
        expect(safeMessage(message)).not.toContain(MARK);
      }),
      { numRuns: 300 },
    );
  });

  it('looks at a bounded part of a huge message and drops the word cut in half there', () => {
    // The quoted part collapses to one "…", so the word cut at the scan limit would show if kept.
    const message = `"${'q'.repeat(1990)}" wk${'7'.repeat(40)} ${'.a'.repeat(200_000)}`;
    const kept = safeMessage(message);
    expect(kept).toBe('… …');
    expect(kept.length).toBeLessThanOrEqual(SAFE_MESSAGE_MAX + 1);
    // A message of exactly the scanned length is looked at whole, its last word included.
    expect(safeMessage(`"${'q'.repeat(1990)}" tail7`.padStart(4 * SAFE_MESSAGE_MAX, ' '))).toMatch(/… tail7$/);
  });
});
