import { Ajv, type ErrorObject } from 'ajv';
import { LogSafeError } from './safe-error.js';

/**
 * The one way every program here reads its environment: a schema of variables (ajv, with coercion
 * and defaults), each with the description the configuration table (deploy/README.md) is generated from.
 * Values are trimmed and empty ones count as unset. A bad environment fails with one error naming
 * every bad variable and why, never a value (it may be a secret).
 */

/** The environment as the process has it. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * One variable. `T` is its type once loaded; `Present` says whether it always has a value (a
 * default, or required) or may be undefined.
 */
export interface EnvVar<T, Present extends boolean = boolean> {
  /** JSON Schema of the value (type, bounds, pattern, enum, default): what ajv checks and coerces. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** One paragraph for operators: the configuration table's Meaning column. */
  readonly description: string;
  /** The configuration table's Default column when the default is not a constant (e.g. `http://localhost:{PORT}`). */
  readonly defaultText?: string;
  /** Why a value is refused, for pattern and check failures (the value is never shown). */
  readonly hint?: string;
  readonly required?: boolean;
  /** Said after "is required", e.g. what to set it to. */
  readonly requiredHint?: string;
  /** Variables that must be set whenever this one is. */
  readonly requires?: readonly string[];
  /** A check a JSON Schema cannot say (e.g. that a URL parses); failures are reported with `hint`. */
  readonly check?: (value: T) => boolean;
  /** Type carriers only: never set. */
  readonly __type?: T;
  readonly __present?: Present;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any variable type fits a schema
export type EnvVars = Record<string, EnvVar<any, boolean>>;

/** The loaded values: one property per variable, named as the variable. */
export type EnvValues<S extends EnvVars> = {
  readonly [K in keyof S]: S[K] extends EnvVar<infer T, infer P> ? (P extends true ? T : T | undefined) : never;
};

interface Common {
  description: string;
  defaultText?: string;
}

/** An integer within [minimum, maximum]. */
export function integer(o: Common & { minimum: number; maximum: number; default: number }): EnvVar<number, true>;
export function integer(o: Common & { minimum: number; maximum: number }): EnvVar<number, false>;
export function integer(o: Common & { minimum: number; maximum: number; default?: number }): EnvVar<number> {
  const { description, defaultText, ...schema } = o;
  return { schema: { type: 'integer', ...schema }, description, ...(defaultText === undefined ? {} : { defaultText }) };
}

interface TextOptions<T extends string> extends Common {
  pattern?: string;
  /** Why a value breaking the pattern or the check is refused ("must be host:port"). */
  hint?: string;
  check?: (value: T) => boolean;
  requires?: readonly string[];
}

/** A string, optionally matching a pattern. */
export function text(o: TextOptions<string> & { default: string }): EnvVar<string, true>;
export function text(o: TextOptions<string>): EnvVar<string, false>;
export function text(o: TextOptions<string> & { default?: string }): EnvVar<string> {
  const { description, defaultText, hint, check, requires, ...schema } = o;
  return {
    schema: { type: 'string', ...schema },
    description,
    ...(defaultText === undefined ? {} : { defaultText }),
    ...(hint === undefined ? {} : { hint }),
    ...(check === undefined ? {} : { check }),
    ...(requires === undefined ? {} : { requires }),
  };
}

/** One of a fixed list of words. */
export function oneOf<const V extends string>(values: readonly V[], o: Common & { default: V }): EnvVar<V, true> {
  const { description, defaultText, ...schema } = o;
  return { schema: { type: 'string', enum: values, ...schema }, description, ...(defaultText === undefined ? {} : { defaultText }) };
}

/** The same variable with another default (the launcher's own for a service's variable, say). */
export function withDefault<T>(variable: EnvVar<T>, value: T, defaultText?: string): EnvVar<T, true> {
  const { defaultText: _previous, ...rest } = variable;
  return { ...rest, schema: { ...variable.schema, default: value }, ...(defaultText === undefined ? {} : { defaultText }) } as EnvVar<T, true>;
}

/** The same variable, required: loading fails when it is unset, naming it (and `hint`: what to set it to). */
export function required<T>(variable: EnvVar<T>, hint?: string): EnvVar<T, true> {
  return { ...variable, required: true, ...(hint === undefined ? {} : { requiredHint: hint }) } as EnvVar<T, true>;
}

/** A program's variables, ready to load an environment. */
export interface EnvSchema<S extends EnvVars> {
  readonly vars: S;
  /** Validates `env` (only the schema's variables are read) and returns the frozen values; throws LogSafeError naming every bad variable. */
  load(env: Environment): EnvValues<S>;
}

/** Problems spanning several variables, asked once each variable is valid alone (e.g. "A must not exceed B"). */
export type CrossChecks<S extends EnvVars> = (values: EnvValues<S>) => Array<string | undefined>;

/** Compiles the schema once; `crossChecks` return a message per broken relation. */
export function defineEnv<S extends EnvVars>(vars: S, crossChecks?: CrossChecks<S>): EnvSchema<S> {
  const properties = Object.fromEntries(Object.entries(vars).map(([name, variable]) => [name, variable.schema]));
  const validate = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: true }).compile({ type: 'object', properties });
  return {
    vars,
    load(env) {
      const values: Record<string, unknown> = {};
      for (const name of Object.keys(vars)) {
        const value = env[name]?.trim();
        if (value !== undefined && value !== '') values[name] = value;
      }
      const problems = new Map<string, string>();
      const sent = new Set(Object.keys(values));
      if (!validate(values)) for (const error of validate.errors ?? []) describe(vars, error, problems);
      for (const [name, variable] of Object.entries(vars)) {
        for (const needed of sent.has(name) ? (variable.requires ?? []) : []) {
          if (!sent.has(needed) && !problems.has(needed)) problems.set(needed, `${needed} is required when ${name} is set`);
        }
        if (problems.has(name)) continue;
        if (variable.required && !sent.has(name)) {
          problems.set(name, `${name} is required${variable.requiredHint ? ` (${variable.requiredHint})` : ''}`);
        } else if (variable.check && sent.has(name) && !variable.check(values[name])) {
          problems.set(name, `${name} ${variable.hint ?? 'is invalid'}`);
        }
      }
      if (problems.size === 0 && crossChecks) {
        for (const [i, problem] of crossChecks(values as EnvValues<S>).entries()) if (problem !== undefined) problems.set(`#${i}`, problem);
      }
      if (problems.size > 0) throw new LogSafeError(`invalid configuration: ${[...problems.values()].join('; ')}`);
      return Object.freeze(values) as EnvValues<S>;
    },
  };
}

/** One message per variable, from the first ajv error about it; it names the rule, never the value. */
function describe(vars: EnvVars, error: ErrorObject, problems: Map<string, string>): void {
  const name = error.instancePath.slice(1);
  const variable = vars[name];
  if (problems.has(name) || variable === undefined) return;
  const { minimum, maximum, type, enum: allowed } = variable.schema as { minimum?: number; maximum?: number; type?: string; enum?: string[] };
  if (type === 'integer') problems.set(name, `${name} must be an integer from ${minimum} to ${maximum}`);
  else if (allowed) problems.set(name, `${name} must be one of ${allowed.join(', ')}`);
  else problems.set(name, `${name} ${variable.hint ?? 'is invalid'}`);
}
