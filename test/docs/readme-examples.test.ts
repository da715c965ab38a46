/**
 * The README's examples work as a reader runs them: every ```sh block, in order, in one bash with
 * `set -euo pipefail`, against a stack started as `npm start` starts it (embedded defaults, its own
 * ports and DATA_DIR, PUBLIC_BASE_URL left to its default) with an ADMIN_TOKEN. The shell gets only
 * what the README tells the reader to have: PORT and DATA_DIR (the stack's) and ADMIN_TOKEN exported, curl and
 * node on PATH. A block that exits non-zero fails the test, and so does an output that differs
 * from the ```json / ```text block the README shows after it. The sh blocks of the package READMEs
 * in EXAMPLE_FILES run after the manual's, in the same shell. ```shell and ```shell-k8s blocks are
 * not run (see test/support/readme-blocks.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_FILES, outputMismatch, readmeExamples, scriptOf, type Example } from '../support/readme-blocks.js';
import { tempDir } from '../support/servers.js';
import { REPO_ROOT, startStack, stopAllStacks, type Stack } from '../support/stack.js';

/** Every example of README.md, then those of the package READMEs that go on from it. */
const allExamples = (): Example[] => EXAMPLE_FILES.flatMap((file) => readmeExamples(readFileSync(`${REPO_ROOT}${file}`, 'utf8'), file));
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const RUN_TIMEOUT_MS = 150_000;

interface Run {
  code: number | null;
  /** Each example's stdout, by its index. */
  outputs: string[];
  log: string;
}

/** Runs the examples as one bash script in the repository, as a reader's shell in a fresh clone. */
async function runExamples(examples: Example[], port: number, dataDir: string): Promise<Run> {
  const out = tempDir('readme-examples-out');
  try {
    // DATA_DIR as a reader with a second stack sets it beside PORT: the CLI examples find that stack's registry through it.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), DATA_DIR: dataDir, ADMIN_TOKEN, OUT_DIR: out.path };
    // detached: its own process group, so whatever an example left in the background goes with it.
    const child = spawn('bash', ['-c', scriptOf(examples)], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), RUN_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    clearTimeout(timer);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
    const outputs = examples.map((_, n) => (existsSync(join(out.path, String(n))) ? readFileSync(join(out.path, String(n)), 'utf8') : ''));
    return { code, outputs, log };
  } finally {
    out.remove();
  }
}

/** File, line and reason of every example whose output differs from what its file shows. */
function mismatches(examples: Example[], run: Run): string[] {
  return examples.flatMap((example, n) => {
    const why = example.expected && outputMismatch(example.expected, run.outputs[n] ?? '');
    return why ? [`${example.file} line ${example.line}: ${why}`] : [];
  });
}

describe('README examples', () => {
  let stack: Stack;
  const dir = tempDir('readme-examples');

  beforeAll(async () => {
    stack = await startStack({ dataDir: dir.path, defaultPublicBaseUrl: true, env: { ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await stopAllStacks();
    dir.remove();
  });

  it('has runnable examples, several with the answer they give', () => {
    const examples = allExamples();
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(new Set(examples.map((e) => e.file))).toEqual(new Set(EXAMPLE_FILES));
    expect(examples.filter((e) => e.expected).length).toBeGreaterThanOrEqual(8);
  });

  it('runs every sh block in order: each exits 0 and prints what the README shows', { timeout: RUN_TIMEOUT_MS + 10_000 }, async () => {
    const examples = allExamples();
    const run = await runExamples(examples, stack.port, dir.path);
    expect(run.code, run.log).toBe(0);
    expect(mismatches(examples, run)).toEqual([]);
  });

  it('fails on an example that stops working or answers otherwise than shown', async () => {
    const notFound = readmeExamples('```sh\ncurl -fsS "http://localhost:$PORT/api/platform/dh/devices/no-such-device"\necho unreachable\n```\n');
    const failed = await runExamples(notFound, stack.port, dir.path);
    expect(failed.code).not.toBe(0);
    expect(failed.log).toMatch(/README example at README\.md line 1 failed/);
    expect(failed.log).not.toMatch(/unreachable/);

    const other = readmeExamples(
      '```sh\ncurl -fsS "http://localhost:$PORT/healthz"\n```\n\n```json\n{"status": "down"}\n```\n\n' +
        '```sh\ncurl -fsS -w \'\\n\' "http://localhost:$PORT/healthz"\n```\n\n```text\n{"status":"o…"}\n```\n',
    );
    const answered = await runExamples(other, stack.port, dir.path);
    expect(answered.code, answered.log).toBe(0);
    expect(mismatches(other, answered)).toEqual([`README.md line 1: $.status: expected "down", got "ok"`]);
  });

  it('compares a ```terminal output with stdout and stderr as written, a ```text one with stdout alone', async () => {
    const block = '```sh\necho out; echo "curl: (28) timed out" >&2; echo after\n```\n\n';
    const shown = readmeExamples(`${block}\`\`\`terminal\nout\ncurl: (28) …\nafter\n\`\`\`\n\n${block}\`\`\`text\nout\nafter\n\`\`\`\n\n${block}\`\`\`terminal\nout\nafter\n\`\`\`\n`);
    const run = await runExamples(shown, stack.port, dir.path);
    expect(run.code, run.log).toBe(0);
    expect(mismatches(shown, run)).toEqual([expect.stringMatching(/^README\.md line 20: expected:\nout\nafter\ngot:\nout\ncurl: \(28\) timed out\nafter$/)]);
  });
});
