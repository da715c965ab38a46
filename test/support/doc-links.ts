/**
 * The relative links of Markdown files: every `[text](path#anchor)` outside code must name a file
 * that exists and, for a Markdown file, a heading of it (its anchor as GitHub makes it). Moving a
 * section without its links, or renaming a heading, breaks one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const FENCE = /^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm;
const INLINE_CODE = /`[^`\n]*`/g;
const LINK = /\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)/g;
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** Markdown without its fenced blocks and inline code, where links and headings are not links. */
const prose = (markdown: string): string => markdown.replace(FENCE, '').replace(INLINE_CODE, (code) => (code.includes('](') ? '' : code));

/** GitHub's anchor of a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor the headings of `markdown` get (a repeated heading gets -1, -2 …). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6} (.+?)#*\s*$/gm)) {
    const base = anchorOf(match[1]!);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** What is wrong with the relative links of `file` (from `root`), given its text; empty when all resolve. */
export function linkProblems(root: string, file: string, markdown = readFileSync(join(root, file), 'utf8')): string[] {
  const problems: string[] = [];
  for (const match of prose(markdown).matchAll(LINK)) {
    const target = match[1]!.replace(/^<|>$/g, '');
    if (target === '' || EXTERNAL.test(target)) continue;
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
    if (relative(root, join(root, resolved)).startsWith('..') || !existsSync(join(root, resolved))) {
      problems.push(`${file}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md')) continue;
    const text = resolved === file ? markdown : readFileSync(join(root, resolved), 'utf8');
    if (!anchorsOf(text).has(anchor)) problems.push(`${file}: ${target}: ${resolved} has no heading #${anchor}`);
  }
  return problems;
}
