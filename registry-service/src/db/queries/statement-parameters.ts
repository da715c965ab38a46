/**
 * The positional parameters of one statement, each declared where its text uses it: `add` hands
 * out the next `$n::type` and keeps how the value is taken from the statement's input, so the
 * placeholders and the parameter array are one list and cannot drift apart. Built once, with the
 * statement's text; `values` runs per call.
 */
export interface StatementParameters<I> {
  /** The placeholder of a new parameter of SQL type `type`, whose value is `value(input)`. */
  add(type: string, value: (input: I) => unknown): string;
  /** The parameter array for one call, in placeholder order. */
  values(input: I): unknown[];
}

export function createStatementParameters<I>(): StatementParameters<I> {
  const taken: Array<(input: I) => unknown> = [];
  return {
    add(type, value) {
      taken.push(value);
      return `$${taken.length}::${type}`;
    },
    values: (input) => taken.map((value) => value(input)),
  };
}
