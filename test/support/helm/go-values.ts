// Go's view of template values: ints versus float64s, how `{{ x }}` prints a value, what counts as
// true, and the kind names Go's error messages use. Shared by the evaluator and the Sprig functions.

/** A Go int (template literal or Sprig arithmetic), as opposed to a float64 from YAML values. */
export class GoInt {
  constructor(readonly value: number) {}
  toString(): string {
    return String(Math.trunc(this.value));
  }
}

/** A template `fail`/`required` message: the chart refused the values, as opposed to an interpreter error. */
export class TemplateFailure extends Error {}

/** A Go map (a YAML mapping or a `dict`); a GoInt is an object in JavaScript but a scalar in Go. */
export const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);

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

/** Go template truth (if, with, and, or, not, default, empty): zero values and empty collections are false. */
export const truthy = (v: unknown): boolean => {
  if (v === null || v === undefined || v === false || v === '' || v === 0) return false;
  if (v instanceof GoInt) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
};

/** The Go kind of a value, named as Go's error messages name it, so type mistakes read like Helm's. */
export const kindOf = (v: unknown): string =>
  v === null || v === undefined ? 'nil' : v instanceof GoInt ? 'int' : typeof v === 'number' ? 'float64' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'slice' : 'map';
