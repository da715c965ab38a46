/**
 * Every relative link of the manual and the package READMEs leads somewhere: to a file that exists
 * and, with an anchor, to a heading of it. A section moved between them keeps its links working.
 */
import { describe, expect, it } from 'vitest';
import { anchorsOf, linkProblems } from '../support/doc-links.js';
import { REPO_ROOT } from '../support/stack.js';

const DOCS = [
  'README.md',
  'ingest-gateway/README.md',
  'registry-service/README.md',
  'media-service/README.md',
  'proto/README.md',
  'deploy/README.md',
  'helm/dynamic-events/README.md',
  'test/bench/README.md',
  'test/mutation/README.md',
];

describe('documentation links', () => {
  it.each(DOCS)('%s: every relative link resolves, anchors included', (file) => {
    expect(linkProblems(REPO_ROOT, file)).toEqual([]);
  });

  it('anchors headings as GitHub does', () => {
    const anchors = anchorsOf('# A\n## Safe retries: `Idempotency-Key`\n## The `npm start` launcher (`local/`)\n## A\n```sh\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['a', 'safe-retries-idempotency-key', 'the-npm-start-launcher-local', 'a-1']);
  });

  it('fails on a missing file, a missing heading, and a link into a fenced block', () => {
    const text = '# Top\n\n[ok](#top) [gone](no-such-file.md) [moved](deploy/README.md#no-such-section) [self](#nowhere)\n\n```sh\n# nowhere\n```\n`[code](not-a-link.md)`\n';
    expect(linkProblems(REPO_ROOT, 'README.md', text)).toEqual([
      'README.md: no-such-file.md: no such file',
      'README.md: deploy/README.md#no-such-section: deploy/README.md has no heading #no-such-section',
      'README.md: #nowhere: README.md has no heading #nowhere',
    ]);
  });
});
