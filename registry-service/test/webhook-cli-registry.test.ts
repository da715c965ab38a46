/**
 * The operator CLI's webhooks commands against the real registry on PostgreSQL: create (the secret
 * printed first, this once), list, update, deliveries, retry, recover and delete, with the registry's
 * own refusals reaching the operator as exit code 1 naming the field.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { runCli } from '../src/cli/run.js';
import { sampleEvent, TEST_INTERNAL_TOKEN, useFreshRegistry, type TestRegistry } from './helpers.js';
import { eventually } from './webhook-api.js';

const up = await postgresAvailable();
let t: TestRegistry;
if (up) useFreshRegistry((started) => (t = started));

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };
  const code = await runCli(['--address', t.address, ...argv], env, { stdout: (s) => void (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe.skipIf(!up)('webhooks from the CLI, against the registry', () => {
  it('creates, lists, updates, reads the log, retries, recovers and deletes', async () => {
    const created = await cli('webhooks', 'create', '--url', 'https://hooks.example.com/in', '--filter', '{"domains": ["acme.camera.*"]}', '--enabled', 'false');
    expect(created.code).toBe(0);
    const webhook = JSON.parse(created.stdout) as { id: string; secret: string; filter: unknown; enabled: boolean; disabled_reason: string };
    expect(created.stdout.trimStart().startsWith('{\n  "secret": "whsec_')).toBe(true);
    expect(webhook).toMatchObject({ filter: { domains: ['acme.camera.*'], kinds: ['event.created'] }, enabled: false, disabled_reason: 'disabled by an admin' });
    const listed = await cli('webhooks', 'list');
    expect(listed.stdout).toContain(webhook.id);
    expect(listed.stdout).not.toContain(webhook.secret);
    const updated = await cli('webhooks', 'update', webhook.id, '--description', 'ticketing');
    expect(JSON.parse(updated.stdout)).toMatchObject({ description: 'ticketing', enabled: false });

    await t.api.recordEvent(sampleEvent());
    t.server.webhooks.runner?.start();
    const pending = async () => JSON.parse((await cli('webhooks', 'deliveries', webhook.id, '--status', 'pending')).stdout) as { deliveries: Array<{ id: string; status: string }> };
    const log = await eventually(pending, (l) => l.deliveries.length > 0);
    expect(log.deliveries).toHaveLength(1);
    expect(JSON.parse((await cli('webhooks', 'retry', webhook.id, log.deliveries[0]!.id)).stdout)).toMatchObject({ id: log.deliveries[0]!.id, status: 'pending' });
    expect(JSON.parse((await cli('webhooks', 'recover', webhook.id, '--since', '2026-01-01T00:00:00Z')).stdout)).toEqual({ recovered: 0 });
    expect((await cli('webhooks', 'delete', webhook.id)).code).toBe(0);
    expect((await cli('webhooks', 'get', webhook.id)).code).toBe(1);
  });

  it('a refusal of the registry names the field and exits 1', async () => {
    const refused = await cli('webhooks', 'create', '--url', 'http://169.254.169.254/latest/meta-data/');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/url must not point to a linkLocal address/);
  });
});
