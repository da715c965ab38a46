// Go templates, parsing: actions into pipelines of commands, and a template into a tree of
// text, actions, if/with/range blocks and template calls. `define` blocks are collected by name.
import { GoInt } from './go-values.js';
import { lexAction, lexTemplate, type Piece, type Token } from './lexer.js';

/** One argument of a command: a literal, `.a.b`, `$x.a`, a function name, or `(pipeline).a`. */
export type Operand =
  | { type: 'literal'; value: unknown }
  | { type: 'field'; path: string[] }
  | { type: 'var'; name: string; path: string[] }
  | { type: 'func'; name: string }
  | { type: 'pipe'; pipe: Pipeline; path: string[] };

/** A function (or value) and its arguments; a pipeline's previous result is appended when evaluated. */
export type Command = Operand[];

/** `$x := a | b c`: the commands joined by `|`, with the variable declaration or assignment, if any. */
export interface Pipeline {
  decl?: { names: string[]; assign: boolean };
  commands: Command[];
}

/** A parsed template node; `if`/`with`/`range` hold their bodies, `template` names a define. */
export type Node =
  | { type: 'text'; text: string }
  | { type: 'action'; pipe: Pipeline }
  | { type: 'if' | 'with'; pipe: Pipeline; then: Node[]; else: Node[] }
  | { type: 'range'; pipe: Pipeline; body: Node[]; else: Node[] }
  | { type: 'template'; name: string; pipe: Pipeline | undefined };

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

/** Parses a template; `define` blocks go into `defines`. Returns the top-level nodes. */
export function parseTemplate(src: string, defines: Map<string, Node[]>): Node[] {
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
