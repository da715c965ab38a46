/**
 * The naming checks `promtool check metrics` applies (Prometheus' promlint), written out so a test
 * holds them on a machine without promtool: HELP text on every family, `_total` on counters and
 * only on counters, the suffixes and labels reserved for histograms and summaries, no metric type
 * or abbreviated or non-base unit in a name, no colon, no camelCase, `_timestamp_seconds` on gauges
 * only. Also what promtool's parser refuses: a family declared twice, a sample of no declared
 * family, a family whose samples are split by another's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
interface Family {
  name: string;
  type?: MetricType;
  help?: string;
  labels: Set<string>;
}

const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const NAME_TYPES = ['counter', 'gauge', 'histogram', 'summary', 'gauge_histogram'];
const ABBREVIATIONS = ['s', 'ms', 'us', 'ns', 'sec', 'b', 'kb', 'mb', 'gb', 'tb', 'pb', 'm', 'h', 'd'];
const BASE_UNITS = ['amperes', 'bytes', 'celsius', 'grams', 'joules', 'kelvin', 'meters', 'metres', 'seconds', 'volts'];
const OTHER_UNITS = ['minutes', 'hours', 'days', 'weeks', 'kelvins', 'fahrenheit', 'rankine', 'inches', 'yards', 'miles', 'bits', 'calories', 'pounds', 'ounces'];
const PREFIXES = ['pico', 'nano', 'micro', 'milli', 'centi', 'deci', 'deca', 'hecto', 'kilo', 'kibi', 'mega', 'mibi', 'giga', 'gibi', 'tera', 'tebi', 'peta', 'pebi'];
const CAMEL = /[a-z][A-Z]/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+\S+(?:\s+-?\d+)?$/;
const LABEL_NAME = /([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g;

const hasPart = (name: string, part: string) => name.includes(`_${part}_`) || name.endsWith(`_${part}`);

/** A unit word in the name that is not the base unit ("milliseconds", "bits"…), or undefined. */
function nonBaseUnit(name: string): string | undefined {
  for (const word of name.split('_')) {
    if (BASE_UNITS.includes(word)) return undefined;
    const stem = PREFIXES.find((p) => word.startsWith(p) && [...BASE_UNITS, ...OTHER_UNITS].includes(word.slice(p.length)));
    if (OTHER_UNITS.includes(word) || stem !== undefined) return word;
  }
  return undefined;
}

/** The naming problems of one family, in promlint's words. */
function familyProblems(f: Family): string[] {
  const out: string[] = [];
  const { name, type = 'untyped' } = f;
  const lower = name.toLowerCase();
  if (!f.help) out.push('no help text');
  if (type === 'counter' && !name.endsWith('_total')) out.push('counter metrics should have "_total" suffix');
  if (type !== 'counter' && type !== 'untyped' && name.endsWith('_total')) out.push('non-counter metrics should not have "_total" suffix');
  if (type !== 'untyped') {
    if (type !== 'histogram' && name.endsWith('_bucket')) out.push('non-histogram metrics should not have "_bucket" suffix');
    for (const suffix of ['_count', '_sum']) if (type !== 'histogram' && type !== 'summary' && name.endsWith(suffix)) out.push(`non-histogram and non-summary metrics should not have "${suffix}" suffix`);
    if (type !== 'histogram' && f.labels.has('le')) out.push('non-histogram metrics should not have "le" label');
    if (type !== 'summary' && f.labels.has('quantile')) out.push('non-summary metrics should not have "quantile" label');
    if (type !== 'gauge' && name.endsWith('_timestamp_seconds')) out.push('non-gauge metrics should not have "_timestamp_seconds" suffix');
  }
  const unit = nonBaseUnit(name);
  if (unit) out.push(`use a base unit instead of "${unit}"`);
  for (const t of NAME_TYPES) if (hasPart(lower, t)) out.push(`metric name should not include type '${t}'`);
  if (name.includes(':')) out.push("metric names should not contain ':'");
  if (CAMEL.test(name)) out.push("metric names should be written in 'snake_case' not 'camelCase'");
  if ([...f.labels].some((l) => CAMEL.test(l))) out.push("label names should be written in 'snake_case' not 'camelCase'");
  if (ABBREVIATIONS.some((a) => hasPart(lower, a))) out.push('metric names should not contain abbreviated units');
  return out.map((problem) => `${name}: ${problem}`);
}

/** The family a sample line belongs to (histograms and summaries add suffixes to their samples). */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  const stem = sample.replace(/_(bucket|sum|count|created)$/, '');
  const family = families.get(stem);
  return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
}

/** Every naming problem in a text exposition, one line each ("name: problem"); [] when it is clean. */
export function lintExposition(text: string): string[] {
  const families = new Map<string, Family>();
  const problems: string[] = [];
  const closed = new Set<string>();
  let current: Family | undefined;
  const open = (name: string) => {
    if (current && current.name !== name) closed.add(current.name);
    if (closed.has(name)) problems.push(`${name}: family declared or sampled again after another family`);
    current = families.get(name) ?? { name, labels: new Set() };
    families.set(name, current);
    return current;
  };
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest = ''] = meta;
      const family = open(name!);
      if (kind === 'HELP') {
        if (family.help !== undefined) problems.push(`${name}: second HELP line`);
        family.help = rest.trim();
      } else {
        if (family.type !== undefined) problems.push(`${name}: second TYPE line`);
        if (!TYPES.includes(rest)) problems.push(`${name}: unknown type "${rest}"`);
        family.type = rest as MetricType;
      }
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) {
      problems.push(`not a sample line: ${line.slice(0, 120)}`);
      continue;
    }
    const family = familyOf(sample[1]!, families);
    if (!family) {
      problems.push(`${sample[1]}: sample of no declared family`);
      continue;
    }
    if (current !== family) open(family.name);
    for (const [, label] of (sample[2] ?? '').matchAll(LABEL_NAME)) family.labels.add(label!);
  }
  return [...problems, ...[...families.values()].flatMap(familyProblems)];
}

/** promtool, when this machine has it (Debian's `prometheus` package installs /usr/bin/promtool). */
export const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));

/** `promtool check metrics` on `text`: its exit code and what it printed. */
export function promtoolCheck(promtool: string, text: string): { code: number | null; output: string } {
  const run = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}
