// Go templates, lexing: a template source into text and actions (with the {{- -}} trim markers
// applied), and an action into tokens.

/** One token of an action; `spaced` records whitespace before it, which separates `(x).F` from `(x) .F`. */
export type Token = { kind: 'string' | 'number' | 'ident' | 'field' | 'var' | 'op'; text: string; spaced?: boolean };

/** A template source cut into literal text and action bodies (the text between {{ and }}). */
export type Piece = { kind: 'text'; text: string } | { kind: 'action'; src: string };

const TOKEN_PATTERNS: [Token['kind'], RegExp][] = [
  ['string', /^"(?:[^"\\]|\\.)*"|^`[^`]*`/],
  ['number', /^-?\d+(\.\d+)?([eE][-+]?\d+)?/],
  ['var', /^\$[A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*/],
  ['field', /^(\.[A-Za-z0-9_]+)+|^\./],
  ['ident', /^[A-Za-z_][A-Za-z0-9_]*/],
  ['op', /^(:=|[()|=,])/],
];

/** Tokenizes one action body; string literals are unquoted here so the parser sees their values. */
export function lexAction(src: string): Token[] {
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

/** Splits a template into text and actions, applying the {{- and -}} trim markers. Comments vanish. */
export function lexTemplate(src: string): Piece[] {
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
