import type { EnvVar, EnvVars } from './env-config.js';

/** A program that reads the environment, as the configuration table (deploy/README.md) names it. */
interface EnvProgram {
  /** "gateway", "registry", "media", or the launcher's label. */
  label: string;
  vars: EnvVars;
  /** The `npm start` launcher: its defaults are shown as "(… under `npm start`)" beside the services'. */
  launcher?: boolean;
}

const LAUNCHER_LABEL = 'launcher (`npm start`)';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any variable type is documented alike
type AnyVar = EnvVar<any, boolean>;

function defaultOf(variable: AnyVar): string {
  if (variable.defaultText !== undefined) return variable.defaultText;
  const value = variable.schema.default;
  if (value !== undefined) return `\`${String(value)}\``;
  return variable.required ? 'required' : 'unset';
}

/** One default, or each program's when they differ ("`9464` gateway, `9465` registry"). */
function defaultCell(services: Array<[EnvProgram, AnyVar]>, launcher: AnyVar | undefined): string {
  const defaults = services.map(([program, variable]) => [program.label, defaultOf(variable)] as const);
  const distinct = new Set(defaults.map(([, text]) => text));
  const cell = distinct.size <= 1 ? (defaults[0]?.[1] ?? '') : defaults.map(([label, text]) => `${text} ${label}`).join(', ');
  if (!launcher) return cell;
  const own = defaultOf(launcher);
  if (cell === '') return own;
  return own === cell ? cell : `${cell} (${own} under \`npm start\`)`;
}

/**
 * The configuration table of deploy/README.md, generated from the programs' schemas so that every variable
 * is documented once, with the default the code applies. A variable shared by several services
 * must carry one description (define it once, in env-vars.ts): a difference throws.
 */
export function renderEnvTable(programs: readonly EnvProgram[]): string {
  const names: string[] = [];
  for (const program of programs) for (const name of Object.keys(program.vars)) if (!names.includes(name)) names.push(name);
  const services = programs.filter((p) => !p.launcher);
  const launcher = programs.find((p) => p.launcher);
  const rows = names.map((name) => {
    const users = services.filter((p) => p.vars[name] !== undefined).map((p) => [p, p.vars[name] as AnyVar] as [EnvProgram, AnyVar]);
    const launcherVar = launcher?.vars[name];
    const descriptions = new Set(users.map(([, v]) => v.description));
    if (descriptions.size > 1) throw new Error(`${name}: ${users.map(([p]) => p.label).join(' and ')} describe it differently; define it once`);
    const description = users[0]?.[1].description ?? launcherVar?.description ?? '';
    const usedBy = users.length === 0 ? LAUNCHER_LABEL : users.length === services.length && services.length > 1 ? 'all' : users.map(([p]) => p.label).join(', ');
    return `| \`${name}\` | ${defaultCell(users, launcherVar)} | ${usedBy} | ${description.replace(/\|/g, '\\|')} |`;
  });
  return ['| Variable | Default | Used by | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
