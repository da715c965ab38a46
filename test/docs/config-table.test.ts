/** deploy/README.md's configuration table is the env schemas' own: any missing, extra or changed row fails. */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/stack.js';
import { tempDir } from '../support/servers.js';

const run = promisify(execFile);
const readme = readFileSync(`${REPO_ROOT}deploy/README.md`, 'utf8');
const dir = tempDir('config-table');

/** Exit code of `test/docs/config-table.js --check` on `text` as deploy/README.md. */
async function check(text: string): Promise<number> {
  const file = `${dir.path}/README.md`;
  writeFileSync(file, text);
  return run(process.execPath, ['test/docs/config-table.js', '--check', file], { cwd: REPO_ROOT }).then(
    () => 0,
    (err: { code?: number }) => err.code ?? -1,
  );
}

describe('deploy/README.md configuration table', () => {
  it('is the one generated from the services\' and the launcher\'s env schemas', async () => {
    expect(await check(readme)).toBe(0);
  });

  it('has no copy in the manual, which links to it', () => {
    const manual = readFileSync(`${REPO_ROOT}README.md`, 'utf8');
    expect(manual).not.toContain('<!-- config-table');
    expect(manual).not.toContain('| `LOCK_WAIT_MS` |');
    expect(manual).toContain('](deploy/README.md#configuration)');
  });

  it('fails when a variable is missing, or documented with another default', async () => {
    const row = readme.split('\n').find((line) => line.startsWith('| `LOCK_WAIT_MS` |'));
    expect(row).toBeDefined();
    expect(await check(readme.replace(`${row}\n`, ''))).toBe(1);
    expect(await check(readme.replace(row!, row!.replace('`3000`', '`5000`')))).toBe(1);
  });
});
