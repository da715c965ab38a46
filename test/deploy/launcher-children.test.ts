/**
 * The launcher asks its own children whether they are ready (over IPC), never whatever answers on
 * their ports: a child that exits, or never says it listens, is not ready, whatever else runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isListening, startChild } from '../../deploy/local/children.js';
import { tempDir } from '../support/servers.js';

const dir = tempDir('launcher-children');
afterAll(() => dir.remove());

/** A child program: `body` runs with an IPC channel to the test. */
function script(name: string, body: string): string {
  const path = join(dir.path, `${name}.mjs`);
  writeFileSync(path, body);
  return path;
}

const base = { env: { PATH: process.env.PATH ?? '' }, isReady: isListening, readyWithinMs: 20_000 };

describe('launcher children', () => {
  it('is ready when the child says it listens, and stops it with SIGTERM', async () => {
    const child = startChild({
      ...base,
      name: 'fake',
      script: script('ready', `process.on('SIGTERM', () => process.exit(0)); process.send({ listening: { port: 1234, metricsPort: 5678 } }); setInterval(() => {}, 1000);`),
    });
    expect(await child.ready).toEqual({ listening: { port: 1234, metricsPort: 5678 } });
    expect(await child.stop()).toBe(true);
  });

  it('is not ready when the child exits first (a port already taken, say), whatever it sent before', async () => {
    const child = startChild({ ...base, name: 'fake', script: script('exits', `process.send({ starting: true }); setTimeout(() => process.exit(3), 50);`) });
    await expect(child.ready).rejects.toThrow('fake exited before it was ready (exit 3)');
    expect((await child.exited).code).toBe(3);
  });

  it('is not ready when the child never says it listens', async () => {
    const child = startChild({ ...base, readyWithinMs: 300, name: 'fake', script: script('silent', `process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);`) });
    await expect(child.ready).rejects.toThrow('fake did not report ready within 0.3 s');
    expect(await child.stop()).toBe(true);
  });
});
