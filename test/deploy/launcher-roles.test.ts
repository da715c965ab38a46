/**
 * Under `npm start` the registry ingest calls runs the counts pass and sends no webhooks; the
 * delivery process sends them and runs no counts pass (at nice 10, a starved holder of the
 * rollup cursor would hold everyone's counts back), while its retention still keeps the commits
 * the pass has not counted (COUNTS_INTERVAL_MS is the stack's, not 0).
 */
import { describe, expect, it } from 'vitest';
import { LAUNCHER_ENV } from '../../deploy/local/config.js';
import { planStack } from '../../deploy/local/plan.js';
import { loadConfig as registryConfig } from '../../registry-service/src/config.js';
import { tempDir } from '../support/servers.js';

async function registryRoles(extra: Record<string, string>) {
  const dir = tempDir('launcher-roles');
  try {
    const env = { DATA_DIR: dir.path, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: 'postgres://127.0.0.1:5432/x', ...extra };
    const { envs } = await planStack(LAUNCHER_ENV.load(env), env);
    const load = (role: Record<string, string | undefined>) => registryConfig(Object.fromEntries(Object.entries(role).filter((e): e is [string, string] => e[1] !== undefined)));
    return { registry: load(envs.registry), delivery: load(envs.delivery) };
  } finally {
    dir.remove();
  }
}

describe('registry roles under npm start', () => {
  it('runs the counts pass where ingest runs, never in the delivery process, which still keeps uncounted commits', async () => {
    const { registry, delivery } = await registryRoles({});
    expect([registry.countsPass, registry.webhooks.deliver]).toEqual([true, false]);
    expect([delivery.countsPass, delivery.webhooks.deliver]).toEqual([false, true]);
    expect(delivery.countsIntervalMs).toBe(registry.countsIntervalMs);
    expect(delivery.countsIntervalMs).toBeGreaterThan(0);
  });

  it('keeps the delivery process out of the pass whatever COUNTS_INTERVAL_MS the stack is given', async () => {
    const { registry, delivery } = await registryRoles({ COUNTS_INTERVAL_MS: '1000' });
    expect([registry.countsIntervalMs, delivery.countsIntervalMs]).toEqual([1000, 1000]);
    expect([registry.countsPass, delivery.countsPass]).toEqual([true, false]);
  });
});
