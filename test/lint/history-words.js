#!/usr/bin/env node
/**
 * Fails on work-history wording in tracked text. The tree says what the code is and why, in the
 * present tense; when or in which attempt something came about belongs to git's log, and prose
 * that narrates it (numbered attempts, designs replaced, dates, commit hashes, issue numbers) goes
 * stale the day it is written. `npm run lint` runs this over every file `git ls-files` lists
 * (minus the lockfile, generated code and binary files); `node test/lint/history-words.js FILE…`
 * checks the given files instead. Prints `file:line: text (rule)` for each finding, exits 1.
 *
 * The patterns are narrow on purpose: "session" counts only with an ordinal or a word of time
 * before it, so HTTP/2, TLS and PostgreSQL sessions pass; dates count only outside quotes and
 * timestamps. A line that must keep a match carries `history-words: allow <reason>`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ORDINALS =
  'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|' +
  'fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\\d+(?:st|nd|rd|th)';

/** Each rule: a name for the report and a case-insensitive pattern. */
export const RULES = [
  { name: 'numbered-session', pattern: new RegExp(`\\b(?:${ORDINALS})[\\s-]+sessions?\\b`, 'i') },
  {
    name: 'session-in-time',
    pattern: /\b(?:this|that|last|next|earlier|previous|prior|later|following|work)\s+sessions?\b|\bsession\s+\d+\b/i,
  },
  // The possessive, unless a technical qualifier (HTTP/2, TLS, LISTEN, …) names the session.
  {
    name: 'session-possessive',
    pattern: /(?<!\b(?:HTTP\/2|http2|TLS|LISTEN|PostgreSQL|Postgres|database|browser|client|server)\s+)\bsession['’]s\b/i,
  },
  { name: 'replaced-design', pattern: /\bearlier\s+designs?\b|\bbefore\s+the\s+split\b|\btried\s+first\b/i },
  { name: 'change-narrative', pattern: /\buntil\s+this\s+change\b|\bwas\s+changed\b|\bmissed\s+in\b|\bformerly\b/i },
  // The passive ("is used to sign") names a purpose; without is/are/been it narrates the past.
  { name: 'used-to', pattern: /(?<!\b(?:is|are|be|been|being|get|gets|got)\s+)\bused\s+to\b/i },
  { name: 'no-longer', pattern: /\bno\s+longer\b(?!\s+than\b)/i },
  { name: 'was-aside', pattern: /\(\s*was\b/i },
  { name: 'issue-number', pattern: /\bissues?\s+#?\d+\b/i },
  // A calendar date in prose; quoted dates and RFC 3339 timestamps (…T08:20:04Z) are data.
  {
    name: 'date',
    pattern: /(?<![\w'"`.:/+-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?![\w'"`/+-]|[.:]\S)/,
  },
  // A short hash after "in", "since", "reverted by"…, or first in parentheses (an aside naming a commit).
  {
    name: 'commit-hash',
    pattern: /(?:\b(?:in|since|before|after|until|from|reverted|fixed|by)\s+`?|\(`?)(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b(?!-)/i,
  },
];

const ALLOW = /history-words: allow \S/;
const SKIPPED = [/(^|\/)package-lock\.json$/, /^proto\/src\/gen\//];
// Released migrations whose comments predate this lint: the registry checksums each migration's
// bytes and refuses to start when an applied one changes (db/migrate.ts), so they stay as written.
const FROZEN = new Set(['0002_object_identity.sql', '0003_idempotency_keys.sql', '0008_token_attribution.sql'].map((f) => `registry-service/migrations/${f}`));

/** A comment's or paragraph's next line without its indent and comment marker (//, *, #, --, >). */
const continuation = (line = '') => line.replace(/^\s*(?:\/\/+|\*|#+|--|>)?\s*/, '');

const GLOBAL = RULES.map((rule) => ({ name: rule.name, pattern: new RegExp(rule.pattern.source, `${rule.pattern.flags}g`) }));

/**
 * Every finding in `text`: { line, text, rule } with 1-based line numbers. Each line is read between
 * the previous line and the start of the next, so a phrase wrapped over two lines counts (on the
 * line where it begins) and a passive wrapped after its "is" still reads as one.
 */
export function findHistoryWords(text) {
  const findings = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (ALLOW.test(line)) return;
    const before = index > 0 ? `${lines[index - 1]} ` : '';
    const joined = `${before}${continuation(line)} ${continuation(lines[index + 1])}`;
    const start = before.length;
    const end = start + continuation(line).length;
    for (const rule of GLOBAL) {
      const match = [...joined.matchAll(rule.pattern)].find((m) => m.index >= start && m.index < end);
      if (match) findings.push({ line: index + 1, text: match[0], rule: rule.name });
    }
  });
  return findings;
}

function trackedFiles(root) {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return listed.split('\0').filter((path) => path && !FROZEN.has(path) && !SKIPPED.some((skip) => skip.test(path)));
}

/** The file's text, or undefined for a binary file (a NUL byte) or a tracked file deleted in the work tree. */
function readText(path, missingOk) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    if (missingOk && err.code === 'ENOENT') return undefined;
    throw err;
  }
  return bytes.subarray(0, 8192).includes(0) ? undefined : bytes.toString('utf8');
}

function main(args) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const given = args.length > 0;
  const files = given ? args.map((path) => ({ path, shown: path })) : trackedFiles(root).map((path) => ({ path: `${root}${path}`, shown: path }));
  let count = 0;
  for (const { path, shown } of files) {
    const text = readText(path, !given);
    if (text === undefined) continue;
    for (const finding of findHistoryWords(text)) {
      console.log(`${shown}:${finding.line}: ${finding.text} (${finding.rule})`);
      count += 1;
    }
  }
  if (count === 0) return 0;
  console.error(
    `\n${count} line(s) of work history. Say what the code does and why, in the present tense; cite a bench ` +
      'scenario for a figure. A line that must keep its wording carries `history-words: allow <reason>`.',
  );
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
