// Offline support for the Helm chart tests (no helm binary can be installed here):
//   chart files, values and schema loading, values merging like `helm -f`,
//   renderChart(): a small interpreter of the Go-template + Sprig subset the chart uses.
// The interpreter follows Helm where the chart could go wrong: numbers from values are float64
// (printed as 1.6777216e+07 past six digits), comparing an int with a float is an error, typed
// Sprig arguments (int, string, bool) are enforced, a field of a nil value is an error, and
// {{- -}} trim whitespace. It is not Helm: `helm template` stays the authority (.ci/run runs it
// when a helm binary is on PATH).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as kubernetesModels from 'kubernetes-models';
import * as prometheusOperatorModels from '@kubernetes-models/prometheus-operator';
import { parse, parseAllDocuments, stringify } from 'yaml';

export const CHART_DIR = new URL('../../helm/dynamic-events/', import.meta.url).pathname;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const readChartFile = (path: string): string => readFileSync(join(CHART_DIR, path), 'utf8');

/** Every file under templates/, as paths relative to the chart ("templates/gateway/deployment.yaml"). */
export function templateFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [relative(CHART_DIR, path)];
    });
  return walk(join(CHART_DIR, 'templates')).sort();
}

export const chartValues = (): JsonObject => parse(readChartFile('values.yaml')) as JsonObject;
export const chartSchema = (): JsonObject => JSON.parse(readChartFile('values.schema.json')) as JsonObject;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);

/** Merges overrides into values like `helm -f`: maps merge key by key, anything else replaces; null deletes. */
export function mergeValues(base: JsonObject, ...overrides: JsonObject[]): JsonObject {
  const merge = (a: Json | undefined, b: Json): Json | undefined => {
    if (b === null) return undefined;
    if (!isMap(a) || !isMap(b)) return structuredClone(b);
    const out: JsonObject = { ...(structuredClone(a) as JsonObject) };
    for (const [key, value] of Object.entries(b)) {
      const merged = merge(out[key], value);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
    return out;
  };
  return overrides.reduce<JsonObject>((acc, o) => merge(acc, o) as JsonObject, structuredClone(base));
}

// ---------------------------------------------------------------------------------------------
// Go templates: lexing and parsing

/** A Go int (template literal or Sprig arithmetic), as opposed to a float64 from YAML values. */
export class GoInt {
  constructor(readonly value: number) {}
  toString(): string {
    return String(Math.trunc(this.value));
  }
}

type Token = { kind: 'string' | 'number' | 'ident' | 'field' | 'var' | 'op'; text: string; spaced?: boolean };
type Operand =
  | { type: 'literal'; value: unknown }
  | { type: 'field'; path: string[] }
  | { type: 'var'; name: string; path: string[] }
  | { type: 'func'; name: string }
  | { type: 'pipe'; pipe: Pipeline; path: string[] };
type Command = Operand[];
interface Pipeline {
  decl?: { names: string[]; assign: boolean };
  commands: Command[];
}
type Node =
  | { type: 'text'; text: string }
  | { type: 'action'; pipe: Pipeline }
  | { type: 'if' | 'with'; pipe: Pipeline; then: Node[]; else: Node[] }
  | { type: 'range'; pipe: Pipeline; body: Node[]; else: Node[] }
  | { type: 'template'; name: string; pipe: Pipeline | undefined };

const TOKEN_PATTERNS: [Token['kind'], RegExp][] = [
  ['string', /^"(?:[^"\\]|\\.)*"|^`[^`]*`/],
  ['number', /^-?\d+(\.\d+)?([eE][-+]?\d+)?/],
  ['var', /^\$[A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*/],
  ['field', /^(\.[A-Za-z0-9_]+)+|^\./],
  ['ident', /^[A-Za-z_][A-Za-z0-9_]*/],
  ['op', /^(:=|[()|=,])/],
];

function lexAction(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = false;
  while (i < src.length) {
    if (/\s/.test(src[i] as string)) {
      i++;
      spaced = true;
      continue;
    }
    const rest = src.slice(i);
    const hit = TOKEN_PATTERNS.map(([kind, re]) => [kind, rest.match(re)?.[0]] as const).find(([, m]) => m !== undefined);
    if (!hit || hit[1] === undefined) throw new Error(`unexpected character ${JSON.stringify(src[i])} in {{${src}}}`);
    const [kind, text] = hit;
    const value = kind !== 'string' ? text : text.startsWith('`') ? text.slice(1, -1) : (JSON.parse(text) as string);
    // `(x).Field` is a field of x; `(x) .Field` is the next argument: whitespace matters.
    tokens.push({ kind, text: value, spaced });
    i += text.length;
    spaced = false;
  }
  return tokens;
}

const fieldPath = (text: string): string[] => text.split('.').filter(Boolean);

function parsePipeline(tokens: Token[], pos = { i: 0 }, nested = false): Pipeline {
  const pipe: Pipeline = { commands: [] };
  // Declarations: `$x :=`, `$x =`, `$i, $v :=`.
  const declEnd = tokens.findIndex((t) => t.kind === 'op' && (t.text === ':=' || t.text === '='));
  if (!nested && declEnd > 0 && tokens.slice(0, declEnd).every((t) => t.kind === 'var' || t.text === ',')) {
    pipe.decl = { names: tokens.slice(0, declEnd).filter((t) => t.kind === 'var').map((t) => t.text), assign: tokens[declEnd]?.text === '=' };
    pos.i = declEnd + 1;
  }
  let command: Command = [];
  while (pos.i < tokens.length) {
    const t = tokens[pos.i++] as Token;
    if (t.kind === 'op' && t.text === ')') {
      if (!nested) throw new Error('unexpected )');
      break;
    }
    if (t.kind === 'op' && t.text === '|') {
      pipe.commands.push(command);
      command = [];
    } else if (t.kind === 'op' && t.text === '(') {
      const inner = parsePipeline(tokens, pos, true);
      const next = tokens[pos.i];
      let path: string[] = [];
      if (next?.kind === 'field' && next.text !== '.' && !next.spaced) {
        path = fieldPath(next.text);
        pos.i++;
      }
      command.push({ type: 'pipe', pipe: inner, path });
    } else if (t.kind === 'string') command.push({ type: 'literal', value: t.text });
    else if (t.kind === 'number') command.push({ type: 'literal', value: /[.eE]/.test(t.text) ? Number(t.text) : new GoInt(Number(t.text)) });
    else if (t.kind === 'field') command.push({ type: 'field', path: fieldPath(t.text) });
    else if (t.kind === 'var') {
      const [name, ...path] = t.text.split('.');
      command.push({ type: 'var', name: name as string, path });
    } else if (t.kind === 'ident') {
      if (t.text === 'true' || t.text === 'false') command.push({ type: 'literal', value: t.text === 'true' });
      else if (t.text === 'nil') command.push({ type: 'literal', value: null });
      else command.push({ type: 'func', name: t.text });
    } else throw new Error(`unexpected ${t.text}`);
  }
  if (command.length > 0) pipe.commands.push(command);
  if (pipe.commands.length === 0 && !pipe.decl) throw new Error('empty pipeline');
  return pipe;
}

type Piece = { kind: 'text'; text: string } | { kind: 'action'; src: string };

/** Splits a template into text and actions, applying the {{- and -}} trim markers. Comments vanish. */
function lexTemplate(src: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  let trimNext = false;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open === -1 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open === -1) {
      pieces.push({ kind: 'text', text });
      break;
    }
    const trimLeft = /^\{\{- /.test(src.slice(open));
    if (trimLeft) text = text.replace(/\s+$/, '');
    pieces.push({ kind: 'text', text });
    const start = open + (trimLeft ? 3 : 2);
    const isComment = src.slice(start).trimStart().startsWith('/*');
    const close = isComment ? src.indexOf('*/', start) + 2 : start;
    const end = src.indexOf('}}', close);
    if (end === -1) throw new Error('unclosed action');
    trimNext = /\s-$/.test(src.slice(start, end));
    const body = src.slice(start, trimNext ? end - 2 : end).trim();
    if (!isComment) pieces.push({ kind: 'action', src: body });
    i = end + 2;
  }
  return pieces.filter((p) => p.kind === 'action' || p.text !== '');
}

/** Parses a template; `define` blocks go into `defines`. Returns the top-level nodes. */
function parseTemplate(src: string, defines: Map<string, Node[]>): Node[] {
  const pieces = lexTemplate(src);
  let i = 0;
  // Parses nodes up to an {{ end }} or {{ else… }}; returns the nodes and the closing keyword's tokens.
  const parseList = (): { nodes: Node[]; stop: Token[] | undefined } => {
    const nodes: Node[] = [];
    while (i < pieces.length) {
      const piece = pieces[i++] as Piece;
      if (piece.kind === 'text') {
        nodes.push({ type: 'text', text: piece.text });
        continue;
      }
      const tokens = lexAction(piece.src);
      const head = tokens[0]?.kind === 'ident' ? tokens[0].text : '';
      if (head === 'end' || head === 'else') return { nodes, stop: tokens };
      if (head === 'if' || head === 'with') nodes.push(parseBranch(head, tokens.slice(1)));
      else if (head === 'range') {
        const body = parseList();
        let elseNodes: Node[] = [];
        if (body.stop?.[0]?.text === 'else') elseNodes = parseList().nodes;
        nodes.push({ type: 'range', pipe: parsePipeline(tokens.slice(1)), body: body.nodes, else: elseNodes });
      } else if (head === 'define') {
        const name = tokens[1]?.text ?? '';
        defines.set(name, parseList().nodes);
      } else if (head === 'template') {
        nodes.push({ type: 'template', name: tokens[1]?.text ?? '', pipe: tokens.length > 2 ? parsePipeline(tokens.slice(2)) : undefined });
      } else nodes.push({ type: 'action', pipe: parsePipeline(tokens) });
    }
    return { nodes, stop: undefined };
  };
  // if/with: `else if`/`else with` chains share the one {{ end }}.
  const parseBranch = (type: 'if' | 'with', condition: Token[]): Node => {
    const then = parseList();
    let elseNodes: Node[] = [];
    const stop = then.stop ?? [];
    if (stop[0]?.text === 'else') {
      const chained = stop[1]?.text;
      if (chained === 'if' || chained === 'with') elseNodes = [parseBranch(chained, stop.slice(2))];
      else elseNodes = parseList().nodes;
    }
    return { type, pipe: parsePipeline(condition), then: then.nodes, else: elseNodes };
  };
  const top = parseList();
  if (top.stop) throw new Error(`unexpected {{ ${top.stop.map((t) => t.text).join(' ')} }}`);
  return top.nodes;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** What `{{ x }}` prints: fmt.Sprint semantics, float64 in Go's shortest %v form. */
export function goPrint(v: unknown): string {
  if (v === null || v === undefined) return ''; // Helm prints <no value> and then removes it
  if (typeof v === 'number') return goFloat(v);
  if (v instanceof GoInt) return v.toString();
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goPrint).join(' ')}]`;
  if (isMap(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goPrint(v[k])}`)
      .join(' ')}]`;
  return String(v);
}

/** strconv.FormatFloat(f, 'g', -1, 64), which %v uses: shortest digits, exponent form when the exponent is < -4 or >= 6. */
function goFloat(f: number): string {
  if (f === 0) return '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

const truthy = (v: unknown): boolean => {
  if (v === null || v === undefined || v === false || v === '' || v === 0) return false;
  if (v instanceof GoInt) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
};

export class TemplateFailure extends Error {}

const kindOf = (v: unknown): string =>
  v === null || v === undefined ? 'nil' : v instanceof GoInt ? 'int' : typeof v === 'number' ? 'float64' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'slice' : 'map';

function argOf<T>(fn: string, v: unknown, kind: 'int' | 'string' | 'bool'): T {
  if (kindOf(v) !== kind) throw new Error(`error calling ${fn}: wrong type for value; expected ${kind}; got ${kindOf(v)}`);
  return (kind === 'int' ? (v as GoInt).value : v) as T;
}

function compare(fn: string, a: unknown, b: unknown): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb || !['int', 'float64', 'string', 'bool'].includes(ka)) throw new Error(`error calling ${fn}: incompatible types for comparison (${ka}, ${kb})`);
  const x = a instanceof GoInt ? a.value : (a as number | string | boolean);
  const y = b instanceof GoInt ? b.value : (b as number | string | boolean);
  return x === y ? 0 : x < y ? -1 : 1;
}

const toInt64 = (v: unknown): number => {
  if (v instanceof GoInt) return v.value;
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : 0;
  return 0;
};
const sprigString = (v: unknown): string => (v === null || v === undefined ? '<nil>' : goPrint(v));
const indent = (n: number, s: string): string => ' '.repeat(n) + s.replace(/\n/g, `\n${' '.repeat(n)}`);
const toPlain = (v: unknown): unknown =>
  v instanceof GoInt ? v.value : Array.isArray(v) ? v.map(toPlain) : isMap(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)])) : v;

function printf(format: string, args: unknown[]): string {
  let n = 0;
  return format.replace(/%([sdvq%])/g, (_, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[n++];
    if (verb === 'd' && !(arg instanceof GoInt)) throw new Error(`printf %d with a ${kindOf(arg)} argument (Go prints %!d(${kindOf(arg)}=…))`);
    if (verb === 's' && typeof arg !== 'string') throw new Error(`printf %s with a ${kindOf(arg)} argument (Go prints %!s(${kindOf(arg)}=…))`);
    return verb === 'q' ? JSON.stringify(sprigString(arg)) : goPrint(arg);
  });
}

interface Scope {
  dot: unknown;
  vars: Map<string, unknown>[];
}

class Renderer {
  readonly defines = new Map<string, Node[]>();
  constructor(private readonly root: Record<string, unknown>) {}

  execute(nodes: Node[], dot: unknown): string {
    return this.run(nodes, { dot, vars: [new Map([['$', dot]])] });
  }

  private run(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      if (node.type === 'text') out += node.text;
      else if (node.type === 'action') {
        const value = this.pipeline(node.pipe, scope);
        if (!node.pipe.decl) out += goPrint(value);
      } else if (node.type === 'if' || node.type === 'with') {
        const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
        const value = this.pipeline(node.pipe, inner);
        if (truthy(value)) out += this.run(node.then, node.type === 'with' ? { ...inner, dot: value } : inner);
        else out += this.run(node.else, inner);
      } else if (node.type === 'range') {
        const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
        const decl = node.pipe.decl;
        const value = this.pipeline({ commands: node.pipe.commands }, inner);
        const entries: [unknown, unknown][] = Array.isArray(value)
          ? value.map((v, k) => [new GoInt(k), v])
          : isMap(value)
            ? Object.keys(value)
                .sort()
                .map((k) => [k, value[k]])
            : value === null || value === undefined
              ? []
              : (() => {
                  throw new Error(`range can't iterate over ${goPrint(value)}`);
                })();
        if (entries.length === 0) out += this.run(node.else, inner);
        for (const [key, item] of entries) {
          const vars = new Map<string, unknown>();
          if (decl?.names.length === 1) vars.set(decl.names[0] as string, item);
          if (decl?.names.length === 2) {
            vars.set(decl.names[0] as string, key);
            vars.set(decl.names[1] as string, item);
          }
          out += this.run(node.body, { dot: item, vars: [...inner.vars, vars] });
        }
      } else if (node.type === 'template') out += this.include(node.name, node.pipe ? this.pipeline(node.pipe, scope) : null);
    }
    return out;
  }

  include(name: string, dot: unknown): string {
    const nodes = this.defines.get(name);
    if (!nodes) throw new Error(`no template "${name}"`);
    try {
      return this.execute(nodes, dot);
    } catch (err) {
      if (err instanceof TemplateFailure || (err as Error).message.startsWith('template ')) throw err;
      throw new Error(`template ${name}: ${(err as Error).message}`, { cause: err });
    }
  }

  private pipeline(pipe: Pipeline, scope: Scope): unknown {
    let value: unknown;
    pipe.commands.forEach((command, index) => {
      value = this.command(command, scope, index === 0 ? [] : [value]);
    });
    if (pipe.decl) {
      const name = pipe.decl.names[0] as string;
      const frame = pipe.decl.assign ? scope.vars.findLast((f) => f.has(name)) : scope.vars[scope.vars.length - 1];
      if (!frame) throw new Error(`undefined variable ${name}`);
      frame.set(name, value);
    }
    return value;
  }

  private command(command: Command, scope: Scope, piped: unknown[]): unknown {
    const [head, ...rest] = command;
    if (!head) throw new Error('empty command');
    if (head.type === 'func') {
      // and/or short-circuit like Go 1.18+.
      if (head.name === 'and' || head.name === 'or') {
        let last: unknown;
        for (const operand of [...rest.map((o) => () => this.operand(o, scope)), ...piped.map((p) => () => p)]) {
          last = operand();
          if (truthy(last) === (head.name === 'or')) return last;
        }
        return last;
      }
      return this.call(head.name, [...rest.map((o) => this.operand(o, scope)), ...piped]);
    }
    if (rest.length > 0 || piped.length > 0) throw new Error(`can't give arguments to a non-function (${JSON.stringify(head)})`);
    return this.operand(head, scope);
  }

  private operand(o: Operand, scope: Scope): unknown {
    switch (o.type) {
      case 'literal':
        return o.value;
      case 'field':
        return this.walk(scope.dot, o.path);
      case 'var': {
        const frame = scope.vars.findLast((f) => f.has(o.name));
        if (!frame) throw new Error(`undefined variable ${o.name}`);
        return this.walk(frame.get(o.name), o.path);
      }
      case 'pipe':
        return this.walk(this.pipeline(o.pipe, scope), o.path);
      case 'func':
        return this.call(o.name, []);
    }
  }

  private walk(value: unknown, path: string[]): unknown {
    let v = value;
    for (const key of path) {
      if (v === null || v === undefined) throw new Error(`nil pointer evaluating interface {}.${key}`);
      if (!isMap(v)) throw new Error(`can't evaluate field ${key} in type ${kindOf(v)}`);
      v = Object.hasOwn(v, key) ? v[key] : null;
    }
    return v;
  }

  private call(fn: string, args: unknown[]): unknown {
    const a = (n: number): unknown => args[n];
    switch (fn) {
      case 'include':
        return this.include(argOf<string>(fn, a(0), 'string'), a(1));
      case 'fail':
        throw new TemplateFailure(argOf<string>(fn, a(0), 'string'));
      case 'required':
        if (!truthy(a(1)) && a(1) !== false) throw new TemplateFailure(argOf<string>(fn, a(0), 'string'));
        return a(1);
      case 'default':
        return args.length < 2 || !truthy(a(1)) ? a(0) : a(1);
      case 'empty':
        return !truthy(a(0));
      case 'not':
        return !truthy(a(0));
      case 'eq':
        return args.slice(1).some((b) => compare(fn, a(0), b) === 0);
      case 'ne':
        return compare(fn, a(0), a(1)) !== 0;
      case 'lt':
        return compare(fn, a(0), a(1)) < 0;
      case 'le':
        return compare(fn, a(0), a(1)) <= 0;
      case 'gt':
        return compare(fn, a(0), a(1)) > 0;
      case 'ge':
        return compare(fn, a(0), a(1)) >= 0;
      case 'print':
        return args.map(goPrint).join('');
      case 'printf':
        return printf(argOf<string>(fn, a(0), 'string'), args.slice(1));
      case 'quote':
        return args
          .filter((x) => x !== null && x !== undefined)
          .map((x) => JSON.stringify(sprigString(x)))
          .join(' ');
      case 'toString':
        return sprigString(a(0));
      case 'toYaml':
        return a(0) === null || a(0) === undefined ? 'null' : stringify(toPlain(a(0)), { version: '1.1', sortMapEntries: true, lineWidth: 0, indentSeq: false }).replace(/\n$/, '');
      case 'indent':
        return indent(argOf<number>(fn, a(0), 'int'), argOf<string>(fn, a(1), 'string'));
      case 'nindent':
        return `\n${indent(argOf<number>(fn, a(0), 'int'), argOf<string>(fn, a(1), 'string'))}`;
      case 'trunc': {
        const n = argOf<number>(fn, a(0), 'int');
        const s = argOf<string>(fn, a(1), 'string');
        return n >= 0 ? s.slice(0, n) : s.slice(Math.max(s.length + n, 0));
      }
      case 'trimSuffix': {
        const suffix = argOf<string>(fn, a(0), 'string');
        const s = argOf<string>(fn, a(1), 'string');
        return suffix && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s;
      }
      case 'replace':
        return argOf<string>(fn, a(2), 'string').split(argOf<string>(fn, a(0), 'string')).join(argOf<string>(fn, a(1), 'string'));
      case 'contains':
        return argOf<string>(fn, a(1), 'string').includes(argOf<string>(fn, a(0), 'string'));
      case 'int':
      case 'int64':
        return new GoInt(toInt64(a(0)));
      case 'add':
        return new GoInt(args.reduce<number>((s, x) => s + toInt64(x), 0));
      case 'mul':
        return new GoInt(args.reduce<number>((s, x) => s * toInt64(x), 1));
      case 'sub':
        return new GoInt(toInt64(a(0)) - toInt64(a(1)));
      case 'list':
        return [...args];
      case 'dict': {
        const out: Record<string, unknown> = {};
        for (let k = 0; k < args.length; k += 2) out[sprigString(args[k])] = args[k + 1];
        return out;
      }
      case 'first': {
        const list = a(0);
        if (!Array.isArray(list)) throw new Error(`first: not a list (${kindOf(list)})`);
        return list[0] ?? null;
      }
      case 'has': {
        const list = a(1);
        return Array.isArray(list) && list.some((x) => x === a(0));
      }
      case 'index':
        return args.slice(1).reduce((v: unknown, key) => {
          if (Array.isArray(v) && key instanceof GoInt) {
            if (key.value < 0 || key.value >= v.length) throw new Error(`index out of range: ${key.value}`);
            return v[key.value];
          }
          if (isMap(v) && typeof key === 'string') return Object.hasOwn(v, key) ? v[key] : null;
          throw new Error(`can't index item of type ${kindOf(v)} with ${kindOf(key)}`);
        }, a(0));
      case 'ternary':
        return argOf<boolean>(fn, a(2), 'bool') ? a(0) : a(1);
      case 'b64enc':
        return Buffer.from(argOf<string>(fn, a(0), 'string')).toString('base64');
      case 'sha256sum':
        return createHash('sha256').update(argOf<string>(fn, a(0), 'string')).digest('hex');
      default:
        throw new Error(`function "${fn}" not defined (in this interpreter)`);
    }
  }
}

/** Renders one template source with `dot` as its data (for tests of the interpreter itself). */
export function renderString(src: string, dot: unknown): string {
  const renderer = new Renderer({});
  return renderer.execute(parseTemplate(src, renderer.defines), dot);
}

// ---------------------------------------------------------------------------------------------
// Rendering a chart

export interface Rendered {
  /** Output of each rendered template file (partials excluded), by path relative to the chart. */
  files: Map<string, string>;
  /** Every non-empty YAML document of every file except NOTES.txt, parsed as YAML 1.1 (like Helm). */
  objects: K8sManifest[];
  notes: string;
}

export interface K8sManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface RenderOptions {
  releaseName?: string;
  namespace?: string;
}

/** Renders the chart with values.yaml merged with the given overrides, the way `helm template` would. */
export function renderChart(overrides: JsonObject[] = [], options: RenderOptions = {}): Rendered {
  const chart = parse(readChartFile('Chart.yaml')) as { name: string; version: string; appVersion: string };
  const values = mergeValues(chartValues(), ...overrides);
  const root: Record<string, unknown> = {
    Values: values,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Release: { Name: options.releaseName ?? 'test', Namespace: options.namespace ?? 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Capabilities: { KubeVersion: { Version: 'v1.30.0' } },
  };
  const renderer = new Renderer(root);
  // Every file is parsed first (defines are global), and is itself a template named by its path.
  for (const path of templateFiles()) renderer.defines.set(`${chart.name}/${path}`, parseTemplate(readChartFile(path), renderer.defines));
  const files = new Map<string, string>();
  for (const path of templateFiles()) {
    const base = path.split('/').pop() as string;
    if (base.startsWith('_')) continue;
    const template = { Name: `${chart.name}/${path}`, BasePath: `${chart.name}/templates` };
    files.set(path, renderer.include(template.Name, { ...root, Template: template }));
  }
  const objects: K8sManifest[] = [];
  for (const [path, text] of files) {
    if (path.endsWith('NOTES.txt')) continue;
    for (const doc of parseAllDocuments(text, { version: '1.1' })) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}\n${text}`);
      const value = doc.toJS() as K8sManifest | null;
      if (value !== null) objects.push(value);
    }
  }
  return { files, objects, notes: files.get('templates/NOTES.txt') ?? '' };
}

/** The one object of a kind and name; throws with the names present when missing. */
export function findObject(objects: K8sManifest[], kind: string, name: string): K8sManifest {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}; have ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// values.yaml, values.schema.json and the templates' .Values references

/** A schema node with its $ref (to #/definitions/…) resolved. */
export function resolveRef(root: JsonObject, node: JsonObject): JsonObject {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const name = ref.replace(/^#\/definitions\//, '');
  const target = (root.definitions as JsonObject | undefined)?.[name];
  if (!isMap(target)) throw new Error(`unresolved $ref ${ref}`);
  return resolveRef(root, target as JsonObject);
}

/** The schema of a key inside an object schema: a named property, or the additionalProperties schema of a map. */
export function childSchema(root: JsonObject, node: JsonObject, key: string): JsonObject | undefined {
  const object = resolveRef(root, node);
  const named = (object.properties as JsonObject | undefined)?.[key];
  if (isMap(named)) return resolveRef(root, named as JsonObject);
  return isMap(object.additionalProperties) ? resolveRef(root, object.additionalProperties as JsonObject) : undefined;
}

export function schemaAt(root: JsonObject, path: readonly string[]): JsonObject | undefined {
  let node: JsonObject | undefined = root;
  for (const key of path) node = node && childSchema(root, node, key);
  return node;
}

/** A map whose keys are data (labels, annotations, resource names), not settings: it has no named properties. */
export const isFreeFormMap = (root: JsonObject, node: JsonObject): boolean => {
  const object = resolveRef(root, node);
  return !isMap(object.properties);
};

/** Every setting in values.yaml as a key path: maps are descended, except free-form ones; lists are leaves. */
export function valuePaths(values: JsonObject, schema: JsonObject): string[][] {
  const out: string[][] = [];
  const walk = (value: Json, path: string[]): void => {
    if (!isMap(value)) return;
    const node = path.length === 0 ? schema : schemaAt(schema, path);
    if (path.length > 0 && (!node || isFreeFormMap(schema, node))) return;
    for (const [key, child] of Object.entries(value)) {
      out.push([...path, key]);
      walk(child, [...path, key]);
    }
  };
  walk(values, []);
  return out;
}

export interface ValuesReference {
  file: string;
  path: string[];
}

/** Every `.Values.a.b.c` (also `$.Values…`, `.context.Values…`) written in a template file. */
export function templateValueReferences(): ValuesReference[] {
  return templateFiles().flatMap((file) =>
    [...readChartFile(file).matchAll(/\.Values((?:\.[A-Za-z0-9_]+)+)/g)].map((m) => ({ file, path: (m[1] as string).split('.').filter(Boolean) })),
  );
}

const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, ' ');

function schemaType(root: JsonObject, node: JsonObject): string {
  const object = resolveRef(root, node);
  if (Array.isArray(object.type)) return object.type.join(' or ');
  if (typeof object.type === 'string') return object.type;
  if (Array.isArray(object.anyOf)) return object.anyOf.map((alt) => schemaType(root, alt as JsonObject)).join(' or ');
  return 'any';
}

/** The README's values table, generated from values.yaml (keys, defaults) and the schema (types, descriptions). */
export function valuesTable(values: JsonObject, schema: JsonObject): string {
  const rows = valuePaths(values, schema).map((path) => {
    const node = schemaAt(schema, path);
    if (!node) throw new Error(`${path.join('.')} is not in the schema`);
    // A $ref's own description wins over the referenced definition's.
    const parent = path.length === 1 ? schema : (schemaAt(schema, path.slice(0, -1)) as JsonObject);
    const own = (parent.properties as JsonObject | undefined)?.[path[path.length - 1] as string] as JsonObject | undefined;
    const description = String(own?.description ?? resolveRef(schema, node).description ?? '');
    let value: Json = values;
    for (const key of path) value = (value as JsonObject)[key] as Json;
    const nested = isMap(value) && !isFreeFormMap(schema, node);
    const shown = nested ? '' : `\`${JSON.stringify(value)}\``;
    return `| \`${path.join('.')}\` | ${schemaType(schema, node)} | ${escapeCell(shown)} | ${escapeCell(description)} |`;
  });
  return ['| Key | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Kubernetes API schemas (kubernetes-models: compiled from the API's OpenAPI; types, enums and
// required fields are checked, unknown fields are not)

type Model = (new (data: object) => { validate(): void }) & { apiVersion?: unknown; kind?: unknown };
const models = new Map<string, Model>();
const collectModels = (namespace: object): void => {
  for (const value of Object.values(namespace)) {
    if (typeof value === 'function' && typeof (value as Model).apiVersion === 'string') models.set(`${String((value as Model).apiVersion)}/${String((value as Model).kind)}`, value as Model);
    else if (typeof value === 'object' && value !== null) collectModels(value);
  }
};
collectModels(kubernetesModels);
collectModels(prometheusOperatorModels);

/** Problems of each object against its API schema; an empty list means every object is valid. */
export function apiSchemaProblems(objects: K8sManifest[]): string[] {
  return objects.flatMap((object) => {
    const id = `${object.kind}/${object.metadata.name}`;
    const Model = models.get(`${object.apiVersion}/${object.kind}`);
    if (!Model) return [`${id}: no schema for ${object.apiVersion} ${object.kind}`];
    try {
      new Model(object).validate();
      return [];
    } catch (err) {
      return [`${id}: ${(err as Error).message}`];
    }
  });
}
