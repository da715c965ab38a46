/** The Limits table (ingest-gateway/README.md) states the shared LIMITS (@dynamic-events/proto), not numbers of its own. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_MAX_LENGTH, LIMITS } from '@dynamic-events/proto';
import { REPO_ROOT } from '../support/stack.js';

const readme = readFileSync(`${REPO_ROOT}ingest-gateway/README.md`, 'utf8');
const n = (value: number) => value.toLocaleString('en-US');

/** The second cell of the Limits row whose first cell starts with `what`. */
function limitOf(what: string): string {
  const start = readme.indexOf('\n## Limits\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const row = section.split('\n').find((line) => line.startsWith(`| ${what}`));
  if (!row) throw new Error(`no Limits row for ${what}`);
  return row.split('|')[2]!.trim();
}

describe('ingest-gateway/README.md limits', () => {
  it('are the shared limits', () => {
    expect(limitOf('JSON values in a body')).toContain(`${n(LIMITS.jsonMaxValues)} members`);
    expect(limitOf('`device_name`')).toBe(`${n(LIMITS.nameMaxLength)} characters`);
    expect(limitOf('`display_description`')).toBe(`${n(LIMITS.descriptionMaxLength)} characters`);
    expect(limitOf('`event_additional_properties`')).toBe(
      `${n(LIMITS.propertiesMaxCount)} entries; keys ${n(LIMITS.propertyKeyMaxLength)} characters; values ${n(LIMITS.propertyValueMaxLength)} characters (except \`base64_image\`)`,
    );
    expect(limitOf('`images`, `video_clips`')).toBe(
      `${n(LIMITS.urlsMaxCount)} URLs each, ${n(LIMITS.urlMaxLength)} characters per URL; a stored \`base64_image\`'s URL is one of the ${n(LIMITS.urlsMaxCount)} \`images\` (so ${n(LIMITS.urlsMaxCount - 1)} sent beside it), over gRPC as over HTTP`,
    );
    expect(limitOf('JSON nesting')).toBe(`${n(LIMITS.jsonMaxDepth)} levels`);
    expect(limitOf('`Idempotency-Key` header')).toBe(`${n(IDEMPOTENCY_KEY_MAX_LENGTH)} printable ASCII characters`);
  });
});
