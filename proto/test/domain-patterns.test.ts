import { describe, expect, it } from 'vitest';
import { domainAllowed } from '../src/contract/index.js';

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
