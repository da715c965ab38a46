/**
 * The built images themselves: how they start (user, init, command, env, ports), that every file a
 * service reads at run time is inside and nothing a production image does not need, that every
 * package the built code imports resolves inside the image, and how large the layers above the
 * base are (each service's own layers under 60 MB).
 */
import { describe, expect, it } from 'vitest';
import { builtImage, docker, inspect, POD_SECURITY } from './support/docker.js';
import { INSPECT_FILES } from './inspect-files.js';

const SERVICES = {
  'registry-service': { ports: ['50051/tcp', '9465/tcp'], runtimeFiles: ['registry-service/migrations/0001_init.sql', 'proto/dynamic_events/registry/v1/registry.proto'] },
  'media-service': { ports: ['50052/tcp', '9466/tcp'], runtimeFiles: ['proto/dynamic_events/media/v1/media.proto'] },
  // The settings console's page (its assets have hashed names), built in the image's build stage.
  'ingest-gateway': { ports: ['8080/tcp', '9464/tcp'], runtimeFiles: ['ingest-gateway/console/dist/index.html'] },
} as const;
type Service = keyof typeof SERVICES;
const MB = 1000 * 1000;

interface ImageConfig { Config: { User: string; Entrypoint: string[]; Cmd: string[]; Env: string[]; WorkingDir: string; ExposedPorts: Record<string, object> } }

/** Non-empty layers (RUN, COPY, ADD) of an image, oldest first, with their size in bytes. */
async function layers(image: string): Promise<{ size: number; createdBy: string }[]> {
  const out = await docker('history', '--no-trunc', '--human=false', '--format', '{{.Size}}\t{{.CreatedBy}}', image);
  return out.trim().split('\n').reverse().map((line) => {
    const [size = '0', ...rest] = line.split('\t');
    return { size: Number(size), createdBy: rest.join('\t') };
  });
}

describe.each(Object.keys(SERVICES) as Service[])('image %s', (service) => {
  it('runs node as the non-root user 1000 under tini, NODE_ENV=production, in /app', async () => {
    const { Config } = await inspect<ImageConfig>('image', builtImage(service));
    expect(Config.User).toBe('1000:1000');
    expect(Config.Entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(Config.Cmd).toEqual(['node', `${service}/dist/main.js`]);
    expect(Config.Env).toContain('NODE_ENV=production');
    expect(Config.WorkingDir).toBe('/app');
    expect(Object.keys(Config.ExposedPorts).sort()).toEqual([...SERVICES[service].ports].sort());
  });

  it('holds every runtime file, resolves every import, and carries no sources, tests, maps or dev packages', async () => {
    const expected = [`${service}/dist/main.js`, 'proto/dist/src/contract/index.js', 'proto/dist/src/runtime/index.js', 'package.json', `${service}/package.json`, 'proto/package.json', ...SERVICES[service].runtimeFiles];
    const out = await docker('run', '--rm', '--network', 'none', ...POD_SECURITY, '--env', `INSPECT_ARGS=${JSON.stringify([service, ...expected])}`,
      '--entrypoint', 'node', builtImage(service), '--experimental-import-meta-resolve', '--no-warnings', '--input-type=module', '-e', INSPECT_FILES);
    const report = JSON.parse(out) as { uid: number; missing: string[]; unwanted: string[]; unwantedInNodeModules: number; devPackages: string[]; imports: string[]; unresolved: string[] };
    expect(report.uid).toBe(1000);
    expect(report.missing).toEqual([]);
    expect(report.unwanted).toEqual([]);
    expect(report.unwantedInNodeModules, 'declaration files, maps or build info in node_modules').toBe(0);
    expect(report.devPackages).toEqual([]);
    expect(report.imports).toContain('@grpc/grpc-js');
    expect(report.unresolved).toEqual([]);
  });
});

describe('image sizes', () => {
  it('keeps the shared runtime layer small and each service’s own layers under 60 MB', async () => {
    const base = await layers(process.env.CONTAINER_BASE_IMAGE ?? '');
    const above = await Promise.all((Object.keys(SERVICES) as Service[]).map(async (s) => ({ service: s, layers: (await layers(builtImage(s))).slice(base.length) })));
    // The runtime stage (tini, user, entrypoint) is the history all three share above the base.
    let shared = 0;
    while (above.every((a) => a.layers[shared]?.createdBy === above[0]!.layers[shared]?.createdBy)) shared++;
    const runtimeBytes = above[0]!.layers.slice(0, shared).reduce((n, l) => n + l.size, 0);
    const rows = above.map(({ service, layers: own }) => {
      const serviceLayers = own.slice(shared).filter((l) => l.size > 0);
      return { service, runtimeBytes, serviceBytes: serviceLayers.reduce((n, l) => n + l.size, 0), serviceLayers };
    });
    for (const row of rows) {
      console.log(`${row.service}: runtime ${(row.runtimeBytes / MB).toFixed(2)} MB, own ${(row.serviceBytes / MB).toFixed(2)} MB in ${row.serviceLayers.length} layers: ` +
        row.serviceLayers.map((l) => `${(l.size / MB).toFixed(2)} MB ${l.createdBy.replace(/^\/bin\/sh -c #\(nop\) /, '').slice(0, 60)}`).join('; '));
    }
    expect(base.length).toBeGreaterThan(0);
    expect(shared).toBeGreaterThan(0);
    // tini and its apt run: a regression here is usually apt's caches left in the layer (~100 MB).
    expect(runtimeBytes).toBeLessThan(5 * MB);
    for (const row of rows) expect(row.serviceBytes, row.service).toBeLessThan(60 * MB);
  });
});
