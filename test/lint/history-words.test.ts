/** test/lint/history-words.js, run as `npm run lint` runs it, on files written here. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./history-words.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'history-words-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fixture's text as the lint reads it: the '~' that keeps this file clean taken out. */
const fixture = (text: string): string => text.replaceAll('~', '');

/** Exit code and stdout of the script on one file holding `text`. */
async function lint(text: string): Promise<{ code: number; stdout: string }> {
  const file = join(dir, 'sample.md');
  writeFileSync(file, text);
  return run(process.execPath, [SCRIPT, file]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  );
}

describe('history-words lint', () => {
  // Each line below is what the lint exists to refuse, with a '~' inside its trigger word so this
  // file itself holds no such wording; fixture() takes the '~' out before the lint reads it.
  it.each([
    ['In the sixteenth ses~sion the first watched round was the lowest.', 'numbered-session'],
    ['Figures from the last ses~sion, rerun.', 'session-in-time'],
    ['the ses~sion\'s figures hold on the quiet machine', 'session-possessive'],
    ['(Until th~is change the call was all-or-none.)', 'change-narrative'],
    ['the earlier de~sign\'s counter row cut throughput by a fifth', 'replaced-design'],
    ['Against main before the sp~lit, buf breaking reports nothing.', 'replaced-design'],
    ['logs us~ed to show a warning on every first image', 'used-to'],
    ['media no lon~ger knows the gateway\'s routes', 'no-longer'],
    ['GET lists events since iss~ue 8.', 'issue-number'],
    ['the service alone (2026-1~1-23, 16 calls in flight)', 'date'],
    ['the goal, mis~sed in 7577~9e2, holds again', 'change-narrative'],
    ['the fast path since 7577~9e2 skips Koa', 'commit-hash'],
    ['a timeout of 2 s (wa~s 5 s)', 'was-aside'],
    ['**Changed: the feed keeps chunks** (7577~9e2). A feed kept each frame.', 'commit-hash'],
    ['### Measured on 2026-1~1-23: A/B on a noisy machine', 'date'],
  ])('flags %j (%s) with its file and line, and exits 1', async (line, rule) => {
    const { code, stdout } = await lint(`A clean first line.\n${fixture(line)}\n`);
    expect(code).toBe(1);
    expect(stdout).toContain(`sample.md:2: `);
    expect(stdout).toContain(`(${rule})`);
  });

  it('passes technical sessions, timestamps, comparisons and a marked line', async () => {
    const clean = [
      'Announces the windows to each peer as its session starts: session.settings({ maxFrameSize }).',
      'import type { ServerHttp2Session } from "node:http2"; an HTTP/2 session\'s window grows by WINDOW_UPDATE.',
      'watch: the LISTEN session failed; a session advisory lock; SET session_replication_role = replica',
      "e.g. '2026-11-21T08:20:04Z', or \"2027-02-30\", or RELEASE.2025-04-22T22-12-26Z",
      'an id (0190a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b) and a key (e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.png)',
      'The key is used to sign; streams live no longer than a unary call would.',
      'A pinned value that looks old: see the reason. // history-words: allow the marker itself under test',
    ].join('\n');
    expect(await lint(clean)).toEqual({ code: 0, stdout: '' });
  });

  it('flags a phrase wrapped over two comment lines on the line where it begins', async () => {
    const { code, stdout } = await lint('/**\n * A batch of first sightings used\n * to release its locks one by one.\n */\n');
    expect(code).toBe(1);
    expect(stdout).toContain('sample.md:2: used');
    expect(stdout).not.toContain('sample.md:3:');
    expect(await lint(fixture('// The key is\n// us~ed to sign the page token.\n'))).toEqual({ code: 0, stdout: '' });
  });

  it('still flags a marked line that gives no reason', async () => {
    const { code } = await lint(fixture('In the third ses~sion. // history-words: allow \n'));
    expect(code).toBe(1);
  });
});
