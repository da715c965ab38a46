/** The console's size budget: what a browser downloads, gzipped, may not pass 60 KB; the build fails above it. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET_BYTES, checkBudget, gzippedSizes } from '../../console/bundle-budget.mjs';

const dir = mkdtempSync(join(tmpdir(), 'console-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('console bundle budget', () => {
  it('is 60 KB gzipped', () => {
    expect(BUNDLE_BUDGET_BYTES).toBe(60 * 1024);
  });

  it('measures each file gzipped and passes a bundle under the budget', () => {
    writeFileSync(join(dir, 'small.js'), 'x'.repeat(100_000));
    const sizes = gzippedSizes(dir, ['small.js']);
    expect(sizes).toHaveLength(1);
    expect(sizes[0]?.[0]).toBe('small.js');
    expect(sizes[0]?.[1]).toBeLessThan(1024);
    expect(checkBudget(sizes)).toBe(sizes[0]?.[1]);
  });

  it('refuses a bundle over the budget, naming its size and the budget', () => {
    // Random bytes do not compress: 40 + 21 KB gzipped stay about 61 KB.
    writeFileSync(join(dir, 'a.js'), randomBytes(40 * 1024));
    writeFileSync(join(dir, 'b.css'), randomBytes(21 * 1024));
    const sizes = gzippedSizes(dir, ['a.js', 'b.css']);
    expect(() => checkBudget(sizes)).toThrow(/console bundle is 61\.\d KB gzipped, over its budget of 60 KB/);
  });
});
