/**
 * Which registry the operator CLI calls when --address is not given: several stacks may run on one
 * machine, so the default port may be another stack's registry. `npm start` writes its addresses to
 * DATA_DIR/stack.json; the CLI uses that file's registry while its launcher runs, and says on stderr
 * which address it used and why.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { resolveTarget } from '../src/cli/target.js';
import { tempDir } from '../../test/support/servers.js';

const dirs: Array<{ remove: () => void }> = [];
afterAll(() => dirs.forEach((dir) => dir.remove()));

const STACK_CREDENTIAL = 'stack-internal-credential-0123456789abcdef';

/** A DATA_DIR whose stack.json names `registry` and the stack's internal credential, written by the process `pid`. */
function dataDirWithStack(pid: number, registry: string): string {
  const dir = tempDir('cli-target');
  dirs.push(dir);
  const stack = { pid, url: 'http://localhost:1/api/platform/dh/dynamic-events', registry, media: '127.0.0.1:2', metrics: {}, internalToken: STACK_CREDENTIAL };
  writeFileSync(join(dir.path, 'stack.json'), JSON.stringify(stack));
  return dir.path;
}

const none = { flag: undefined, REGISTRY_ADDR: undefined, REGISTRY_GRPC_PORT: undefined };

describe('the registry the CLI calls', () => {
  it('prefers --address, then REGISTRY_ADDR, then REGISTRY_GRPC_PORT, then the running stack of DATA_DIR', async () => {
    const DATA_DIR = dataDirWithStack(process.pid, '127.0.0.1:18051');
    expect(await resolveTarget({ ...none, DATA_DIR })).toEqual({
      address: '127.0.0.1:18051',
      source: expect.stringContaining(join(DATA_DIR, 'stack.json')),
      credential: STACK_CREDENTIAL,
    });
    expect(await resolveTarget({ ...none, DATA_DIR, REGISTRY_GRPC_PORT: 7 })).toEqual({ address: '127.0.0.1:7', source: 'REGISTRY_GRPC_PORT' });
    expect((await resolveTarget({ ...none, DATA_DIR, REGISTRY_GRPC_PORT: 7, REGISTRY_ADDR: 'registry:1' })).address).toBe('registry:1');
    expect(await resolveTarget({ ...none, DATA_DIR, REGISTRY_ADDR: 'registry:1', flag: 'other:2' })).toEqual({ address: 'other:2', source: '--address' });
  });

  it('ignores a stack file whose launcher is gone, and says so', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const DATA_DIR = dataDirWithStack(gone, '127.0.0.1:18051');
    const target = await resolveTarget({ ...none, DATA_DIR });
    expect(target.address).toBe('127.0.0.1:50051');
    expect(target.credential).toBeUndefined();
    expect(target.source).toContain(`pid ${gone}`);
  });

  it('falls back to 127.0.0.1:50051 without a stack file', async () => {
    const dir = tempDir('cli-target-empty');
    dirs.push(dir);
    expect((await resolveTarget({ ...none, DATA_DIR: dir.path })).address).toBe('127.0.0.1:50051');
  });

  it('reads DATA_DIR from the environment it is given and prints the address it used on stderr', async () => {
    // Port 1: nothing answers there, so the call fails fast and names the address too.
    const DATA_DIR = dataDirWithStack(process.pid, '127.0.0.1:1');
    let stderr = '';
    const code = await runCli(['auth', 'show'], { DATA_DIR }, { stdout: () => undefined, stderr: (s) => (stderr += s) });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^using the registry at 127\\.0\\.0\\.1:1 \\(the stack npm start runs from ${join(DATA_DIR, 'stack.json').replace(/[.]/g, '\\.')}, pid ${process.pid}\\)\\n`));
    expect(stderr).toContain('(registry at 127.0.0.1:1)');
  });
});
