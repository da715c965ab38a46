// Go templates, evaluation: runs parsed nodes against a dot and variable scopes. Like Go, a field
// of a nil value is an error, `and`/`or` short-circuit, range walks map keys in sorted order, and
// an error inside an included template names that template.
import { callFunction } from './functions.js';
import { GoInt, goPrint, isMap, kindOf, TemplateFailure, truthy } from './go-values.js';
import { type Command, type Node, type Operand, parseTemplate, type Pipeline } from './parser.js';

interface Scope {
  dot: unknown;
  vars: Map<string, unknown>[];
}

/** Runs templates that share one set of defines (a chart's templates can include each other's). */
export interface Renderer {
  /** Named templates: `define` blocks, and whatever the caller registers (a chart registers each file by path). */
  readonly defines: Map<string, Node[]>;
  /** Runs nodes with `dot` as both `.` and `$`. */
  execute(nodes: Node[], dot: unknown): string;
  /** Runs a named template, as `include` and `{{ template }}` do; errors are prefixed with the template's name. */
  include(name: string, dot: unknown): string;
}

/** A renderer with no defines yet; parse templates into its `defines` before including them. */
export function createRenderer(): Renderer {
  const defines = new Map<string, Node[]>();

  const execute = (nodes: Node[], dot: unknown): string => run(nodes, { dot, vars: [new Map([['$', dot]])] });

  const run = (nodes: Node[], scope: Scope): string => {
    let out = '';
    for (const node of nodes) {
      if (node.type === 'text') out += node.text;
      else if (node.type === 'action') {
        const value = pipeline(node.pipe, scope);
        if (!node.pipe.decl) out += goPrint(value);
      } else if (node.type === 'if' || node.type === 'with') {
        const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
        const value = pipeline(node.pipe, inner);
        if (truthy(value)) out += run(node.then, node.type === 'with' ? { ...inner, dot: value } : inner);
        else out += run(node.else, inner);
      } else if (node.type === 'range') out += range(node, scope);
      else if (node.type === 'template') out += include(node.name, node.pipe ? pipeline(node.pipe, scope) : null);
    }
    return out;
  };

  const range = (node: Extract<Node, { type: 'range' }>, scope: Scope): string => {
    let out = '';
    const inner: Scope = { dot: scope.dot, vars: [...scope.vars, new Map()] };
    const decl = node.pipe.decl;
    const value = pipeline({ commands: node.pipe.commands }, inner);
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
    if (entries.length === 0) out += run(node.else, inner);
    for (const [key, item] of entries) {
      const vars = new Map<string, unknown>();
      if (decl?.names.length === 1) vars.set(decl.names[0] as string, item);
      if (decl?.names.length === 2) {
        vars.set(decl.names[0] as string, key);
        vars.set(decl.names[1] as string, item);
      }
      out += run(node.body, { dot: item, vars: [...inner.vars, vars] });
    }
    return out;
  };

  const include = (name: string, dot: unknown): string => {
    const nodes = defines.get(name);
    if (!nodes) throw new Error(`no template "${name}"`);
    try {
      return execute(nodes, dot);
    } catch (err) {
      if (err instanceof TemplateFailure || (err as Error).message.startsWith('template ')) throw err;
      throw new Error(`template ${name}: ${(err as Error).message}`, { cause: err });
    }
  };

  const pipeline = (pipe: Pipeline, scope: Scope): unknown => {
    let value: unknown;
    pipe.commands.forEach((command, index) => {
      value = evalCommand(command, scope, index === 0 ? [] : [value]);
    });
    if (pipe.decl) {
      const name = pipe.decl.names[0] as string;
      const frame = pipe.decl.assign ? scope.vars.findLast((f) => f.has(name)) : scope.vars[scope.vars.length - 1];
      if (!frame) throw new Error(`undefined variable ${name}`);
      frame.set(name, value);
    }
    return value;
  };

  const evalCommand = (command: Command, scope: Scope, piped: unknown[]): unknown => {
    const [head, ...rest] = command;
    if (!head) throw new Error('empty command');
    if (head.type === 'func') {
      // and/or short-circuit like Go 1.18+.
      if (head.name === 'and' || head.name === 'or') {
        let last: unknown;
        for (const next of [...rest.map((o) => () => operand(o, scope)), ...piped.map((p) => () => p)]) {
          last = next();
          if (truthy(last) === (head.name === 'or')) return last;
        }
        return last;
      }
      return callFunction(head.name, [...rest.map((o) => operand(o, scope)), ...piped], include);
    }
    if (rest.length > 0 || piped.length > 0) throw new Error(`can't give arguments to a non-function (${JSON.stringify(head)})`);
    return operand(head, scope);
  };

  const operand = (o: Operand, scope: Scope): unknown => {
    switch (o.type) {
      case 'literal':
        return o.value;
      case 'field':
        return walk(scope.dot, o.path);
      case 'var': {
        const frame = scope.vars.findLast((f) => f.has(o.name));
        if (!frame) throw new Error(`undefined variable ${o.name}`);
        return walk(frame.get(o.name), o.path);
      }
      case 'pipe':
        return walk(pipeline(o.pipe, scope), o.path);
      case 'func':
        return callFunction(o.name, [], include);
    }
  };

  const walk = (value: unknown, path: string[]): unknown => {
    let v = value;
    for (const key of path) {
      if (v === null || v === undefined) throw new Error(`nil pointer evaluating interface {}.${key}`);
      if (!isMap(v)) throw new Error(`can't evaluate field ${key} in type ${kindOf(v)}`);
      v = Object.hasOwn(v, key) ? v[key] : null;
    }
    return v;
  };

  return { defines, execute, include };
}

/** Renders one template source with `dot` as its data (for tests of the interpreter itself). */
export function renderString(src: string, dot: unknown): string {
  const renderer = createRenderer();
  return renderer.execute(parseTemplate(src, renderer.defines), dot);
}
