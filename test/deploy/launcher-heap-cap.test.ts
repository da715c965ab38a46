/**
 * The registry's processes (the one ingest calls, and the webhook delivery replica) run with V8's
 * old generation capped, under `npm start` as in the image. Uncapped, V8 sizes it from the host's
 * memory and leaves garbage uncollected far past the chart's 256 MiB limit (the bench's webhooks
 * scenario: the delivery process at 274 MiB RSS, the registry at 283 under batches).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAUNCHER_ENV } from '../../deploy/local/config.js';
import { planStack, REGISTRY_HEAP_OPTION } from '../../deploy/local/plan.js';
import { tempDir } from '../support/servers.js';

async function nodeOptions(extra: Record<string, string>): Promise<Record<string, string | undefined>> {
  const dir = tempDir('launcher-heap');
  try {
    const env = { DATA_DIR: dir.path, HOST: '127.0.0.1', PORT: '0', ...extra };
    const { envs } = await planStack(LAUNCHER_ENV.load(env), env);
    return Object.fromEntries(Object.entries(envs).map(([name, e]) => [name, e.NODE_OPTIONS]));
  } finally {
    dir.remove();
  }
}

describe('the registry heap cap', () => {
  it('caps the old generation of the registry and the delivery process only', async () => {
    expect(REGISTRY_HEAP_OPTION).toBe('--max-old-space-size=192');
    expect(await nodeOptions({})).toEqual({ gateway: undefined, media: undefined, registry: REGISTRY_HEAP_OPTION, delivery: REGISTRY_HEAP_OPTION });
  });

  it('keeps NODE_OPTIONS as set, adding the cap only where it names none', async () => {
    const kept = await nodeOptions({ NODE_OPTIONS: '--enable-source-maps' });
    expect(kept.gateway).toBe('--enable-source-maps');
    expect(kept.registry).toBe(`--enable-source-maps ${REGISTRY_HEAP_OPTION}`);
    const own = await nodeOptions({ NODE_OPTIONS: '--max-old-space-size=300' });
    expect(own.registry).toBe('--max-old-space-size=300');
    expect(own.delivery).toBe('--max-old-space-size=300');
  });

  it('is the one the registry image sets', () => {
    const dockerfile = readFileSync(new URL('../../deploy/docker/Dockerfile', import.meta.url), 'utf8');
    const stage = dockerfile.slice(dockerfile.indexOf('AS registry-service'), dockerfile.indexOf('FROM runtime AS media-service'));
    expect(stage).toContain(`ENV NODE_OPTIONS=${REGISTRY_HEAP_OPTION}`);
  });
});
