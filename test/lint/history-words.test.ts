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
  // Each line below is what the lint exists to refuse; the markers keep this file itself clean.
  it.each([
    ['In the sixteenth session the first watched round was the lowest.', 'numbered-session'], // history-words: allow fixture
    ['Figures from the last session, rerun.', 'session-in-time'], // history-words: allow fixture
    ['the session\'s figures hold on the quiet machine', 'session-possessive'], // history-words: allow fixture
    ['(Until this change the call was all-or-none.)', 'change-narrative'], // history-words: allow fixture
    ['the earlier design\'s counter row cut throughput by a fifth', 'replaced-design'], // history-words: allow fixture
    ['Against main before the split, buf breaking reports nothing.', 'replaced-design'], // history-words: allow fixture
    ['logs used to show a warning on every first image', 'used-to'], // history-words: allow fixture
    ['media no longer knows the gateway\'s routes', 'no-longer'], // history-words: allow fixture
    ['GET lists events since issue 8.', 'issue-number'], // history-words: allow fixture
    ['the service alone (2026-11-23, 16 calls in flight)', 'date'], // history-words: allow fixture
    ['the goal, missed in 75779e2, holds again', 'change-narrative'], // history-words: allow fixture
    ['the fast path since 75779e2 skips Koa', 'commit-hash'], // history-words: allow fixture
    ['a timeout of 2 s (was 5 s)', 'was-aside'], // history-words: allow fixture
    ['**Changed: the feed keeps chunks** (75779e2). A feed kept each frame.', 'commit-hash'], // history-words: allow fixture
    ['### Measured on 2026-11-23: A/B on a noisy machine', 'date'], // history-words: allow fixture
  ])('flags %j (%s) with its file and line, and exits 1', async (line, rule) => {
    const { code, stdout } = await lint(`A clean first line.\n${line}\n`);
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
    expect(await lint('// The key is\n// used to sign the page token.\n')).toEqual({ code: 0, stdout: '' }); // history-words: allow fixture
  });

  it('still flags a marked line that gives no reason', async () => {
    const { code } = await lint('In the third session. // history-words: allow \n'); // history-words: allow fixture
    expect(code).toBe(1);
  });
});
