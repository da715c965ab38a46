import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { domainAllowed, patternWithin } from '../src/contract/index.js';

describe('domainAllowed (a token policy\'s domains)', () => {
  it('takes exact domains, every domain below a ".*" pattern, and "*"', () => {
    expect(domainAllowed(['acme.camera.video'], 'acme.camera.video')).toBe(true);
    expect(domainAllowed(['acme.camera.*'], 'acme.camera.video')).toBe(true);
    expect(domainAllowed(['acme.camera.*'], 'acme.camera.video.hd')).toBe(true);
    expect(domainAllowed(['*'], 'anything.at.all')).toBe(true);
  });

  it.each([
    ['acme.camera', 'the parent itself'],
    ['acme.cameras.x', 'a sibling sharing a prefix'],
    ['acme.camera.', 'an empty label after the parent'],
    ['acme.camera..', 'two empty labels'],
    ['acme.camera..x', 'an empty label then a label'],
    ['acme.camera.x.', 'an empty last label'],
    ['acme.camera.x..y', 'an empty label in the middle'],
  ])('refuses %j under acme.camera.* (%s): "*" stands for one or more non-empty labels', (domain) => {
    expect(domainAllowed(['acme.camera.*'], domain)).toBe(false);
  });
});

describe('patternWithin (does a policy allow every domain a pattern matches?)', () => {
  it.each([
    [['acme.*'], 'acme.camera.*', true],
    [['acme.*'], 'acme.camera', true],
    [['acme.*'], 'acme.*', true],
    [['acme.*'], 'acme', false],
    [['acme.camera.*'], 'acme.*', false],
    [['acme.camera.*'], 'acme.cameras.*', false],
    [['acme'], 'acme.*', false],
    [['*'], '*', true],
    [['acme.*', 'globex'], '*', false],
    [[], 'acme', false],
  ])('%j allows all of %j: %s', (patterns, pattern, expected) => {
    expect(patternWithin(patterns, pattern)).toBe(expected);
  });

  it('never claims a pattern whose domains the policy refuses (generated patterns and domains)', () => {
    const label = fc.constantFrom('a', 'b', 'ab', 'a_b');
    const pattern = fc.oneof(fc.constant('*'), fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([l, below]) => l.join('.') + (below ? '.*' : '')));
    const domain = fc.array(fc.constantFrom('a', 'b', 'ab', 'a_b', ''), { minLength: 1, maxLength: 5 }).map((l) => l.join('.'));
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 3 }), pattern, fc.array(domain, { maxLength: 20 }), (policy, p, domains) => {
        if (!patternWithin(policy, p)) return;
        for (const d of domains) if (domainAllowed([p], d)) expect(domainAllowed(policy, d)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
