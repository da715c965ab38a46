/**
 * `npm start` checks the whole configuration before starting anything: the variables it reads, with
 * the services' own definitions, and then each service's configuration on the environment that
 * service will get, through the service's own schema.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLauncher } from '../support/launcher-run.js';
import { tempDir } from '../support/servers.js';

const dirs: Array<{ remove: () => void }> = [];
afterAll(() => dirs.forEach((dir) => dir.remove()));

describe('launcher configuration', () => {
  it('refuses a bad environment at once, naming every bad variable and no value, and starts nothing', async () => {
    const { code, output } = await runLauncher({ PORT: 'eighty', GRPC_HOST: 'a b', REGISTRY_GRPC_PORT: '0', PUBLIC_BASE_URL: 'ftp://secret@x', DATA_DIR: '/nonexistent/never-created' });
    expect(code).toBe(1);
    for (const message of [
      'PORT must be an integer from 0 to 65535',
      'GRPC_HOST must be a host name or address without spaces',
      // The registry may bind port 0 (any port); the launcher must connect to it, so 0 is refused here.
      'REGISTRY_GRPC_PORT must be an integer from 1 to 65535',
      'PUBLIC_BASE_URL must be an http(s) URL',
    ]) {
      expect(output).toContain(message);
    }
    expect(output).not.toContain('secret');
    expect(output).not.toContain('embedded');
  });

  it("checks every service's own settings before the embedded Postgres starts, naming each service and variable, never a value", async () => {
    const dir = tempDir('launcher-config');
    dirs.push(dir);
    const adminToken = 'short-admin-secret';
    const { code, output } = await runLauncher({
      DATA_DIR: dir.path,
      HOST: '127.0.0.1',
      PORT: '0',
      ADMIN_TOKEN: adminToken,
      WRITE_CONCURRENCY: '0',
      WATCH_RETENTION: 'forever',
      MAX_IMAGE_PIXELS: '-5',
    });
    expect(code).toBe(1);
    expect(output).toContain('gateway: ADMIN_TOKEN must be at least 32 visible ASCII characters');
    expect(output).toMatch(/registry: [^"]*WRITE_CONCURRENCY must be an integer from 1 to 1000[^"]*WATCH_RETENTION must be a duration/);
    expect(output).toContain('media: MAX_IMAGE_PIXELS must be an integer');
    expect(output).not.toContain(adminToken);
    // Nothing started: no embedded Postgres (it would have created DATA_DIR/postgres), no service.
    expect(output).not.toContain('embedded Postgres');
    expect(output).not.toContain('listening');
    expect(existsSync(join(dir.path, 'postgres'))).toBe(false);
  });
});
