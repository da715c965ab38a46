/**
 * The README's runnable examples: every ```sh block, in order, as one bash script, each with the
 * expected output that may follow it (a ```json or ```text block right after it: what it prints
 * on stdout; a ```terminal block: what the reader's terminal shows, stdout and stderr in the order
 * written, such as curl's `curl: (28) …` line when --max-time ends a stream). The package
 * READMEs in EXAMPLE_FILES after README.md go on in the same shell, where the manual left it
 * (`$API`, `$EVENT`, `$ADMIN`, `$IMAGE_URL` set). ```shell and
 * ```shell-k8s blocks are for the reader only (they start the stack, or need helm, kubectl, docker
 * or grpcurl) and are never run. In an expected output, `…` stands for anything.
 */

/** Fences whose blocks are run, and fences that state the output of the block before them. */
export const RUN_FENCE = 'sh';
export const OUTPUT_FENCES = ['json', 'text', 'terminal'] as const;

/** The Markdown files whose ```sh blocks are run, in this order, from the repository root. */
export const EXAMPLE_FILES = ['README.md', 'ingest-gateway/README.md', 'registry-service/README.md'] as const;

export interface Example {
  /** The file it is in, from the repository root. */
  file: string;
  /** 1-based line of the block's opening fence in that file. */
  line: number;
  code: string;
  expected?: { kind: (typeof OUTPUT_FENCES)[number]; text: string };
}

interface Fence {
  lang: string;
  line: number;
  body: string;
  /** Whether only blank lines separate it from the fence before it. */
  adjacent: boolean;
}

function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const out: Fence[] = [];
  let lastEnd = -2;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const close = lines.findIndex((l, j) => j > i && l.trimEnd() === '```');
    if (close < 0) throw new Error(`README line ${i + 1}: fence never closed`);
    const between = lines.slice(lastEnd + 1, i);
    out.push({ lang: open[1]!, line: i + 1, body: lines.slice(i + 1, close).join('\n'), adjacent: lastEnd >= 0 && between.every((l) => l.trim() === '') });
    lastEnd = close;
    i = close;
  }
  return out;
}

/** The ```sh blocks of `markdown` (the text of `file`) in order, each with the output block that follows it, if any. */
export function readmeExamples(markdown: string, file = 'README.md'): Example[] {
  const all = fences(markdown);
  return all.flatMap((fence, i) => {
    if (fence.lang !== RUN_FENCE) return [];
    const next = all[i + 1];
    const kind = OUTPUT_FENCES.find((k) => k === next?.lang);
    return [{ file, line: fence.line, code: fence.body, expected: kind && next?.adjacent ? { kind, text: next.body } : undefined }];
  });
}

/**
 * One bash script running every example in order in one shell (variables carry over, as for a
 * reader pasting them into one terminal), each example's stdout also written to `$OUT_DIR/<n>`.
 * A failing command ends the script and names the file and line of its block.
 */
export function scriptOf(examples: Example[]): string {
  const parts = examples.map((example, n) => {
    const stderr = example.expected?.kind === 'terminal' ? ' 2>&1' : '';
    return `EXAMPLE_AT='${example.file} line ${example.line}'\n{\n${example.code}\n} > "$OUT_DIR/${n}"${stderr}\ncat "$OUT_DIR/${n}"`;
  });
  return ['set -euo pipefail', `trap 'echo "README example at $EXAMPLE_AT failed (exit $?)" >&2' ERR`, ...parts, ''].join('\n');
}

/** `…` in an expected string: anything (within the line, for text). */
const wildcard = (text: string, any: string): RegExp =>
  new RegExp(`^${text.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(any)}$`, 's');

const trimLines = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .trim();

/** Why `actual` does not match `expected` (a JSON value, `…` in strings matching anything), or undefined. */
export function jsonMismatch(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (typeof expected === 'string') {
    if (typeof actual === 'string' && wildcard(expected, '.*').test(actual)) return undefined;
    return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path}: expected ${expected.length} items, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const why = jsonMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (why) return why;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    const keys = (o: object) => Object.keys(o).sort().join(',');
    if (keys(expected) !== keys(actual)) return `${path}: expected keys ${keys(expected)}, got ${keys(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const why = jsonMismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (why) return why;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** Why an example's output (stdout; with stderr for `terminal`) does not match its expected output, or undefined when it does. */
export function outputMismatch(expected: NonNullable<Example['expected']>, stdout: string): string | undefined {
  if (expected.kind === 'json') {
    let actual: unknown;
    try {
      actual = JSON.parse(stdout);
    } catch {
      return `expected one JSON value, got ${JSON.stringify(stdout)}`;
    }
    return jsonMismatch(JSON.parse(expected.text), actual);
  }
  const want = trimLines(expected.text);
  const got = trimLines(stdout.replaceAll('\r', ''));
  return wildcard(want, '[^\\n]*').test(got) ? undefined : `expected:\n${want}\ngot:\n${got}`;
}
