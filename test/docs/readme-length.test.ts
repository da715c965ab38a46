/**
 * The manual stays a path through the product: README.md holds at most 700 lines, and reference
 * detail (every variable, limit, metric, refusal and stream bound) lives in OpenAPI and the package
 * READMEs it links to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/stack.js';

const MAX_LINES = 700;
const linesOf = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('README length', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    expect(linesOf(readFileSync(`${REPO_ROOT}README.md`, 'utf8'))).toBeLessThanOrEqual(MAX_LINES);
  });

  it('counts lines as wc -l does', () => {
    expect(linesOf('a\nb\n')).toBe(2);
    expect(linesOf('a\nb')).toBe(2);
  });
});
