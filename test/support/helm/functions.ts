// The template functions the chart calls: Go's builtins (eq, lt, printf, index, not…) and the Sprig
// and Helm subset (include, required, toYaml, nindent…). Typed Sprig arguments are enforced and
// comparisons of different kinds are errors, as in Helm, so the chart's type mistakes fail here too.
// `and`/`or` are not here: they short-circuit, so the evaluator handles them.
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { GoInt, goPrint, isMap, kindOf, TemplateFailure, truthy } from './go-values.js';

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

/** Renders a named template with a given dot: what `include` needs from the evaluator. */
export type Include = (name: string, dot: unknown) => string;

/** Calls a template function by name with its evaluated arguments; an unknown name is an error, not a no-op. */
export function callFunction(fn: string, args: unknown[], include: Include): unknown {
  const a = (n: number): unknown => args[n];
  switch (fn) {
    case 'include':
      return include(argOf<string>(fn, a(0), 'string'), a(1));
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
