/** `npm start` checks the variables it reads with the services' own definitions, before starting anything. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/stack.js';

describe('launcher configuration', () => {
  it('refuses a bad environment at once, naming every bad variable and no value, and starts nothing', async () => {
    const child = spawn(process.execPath, ['deploy/local/start.js'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', GRPC_HOST: 'a b', REGISTRY_GRPC_PORT: '0', PUBLIC_BASE_URL: 'ftp://secret@x', DATA_DIR: '/nonexistent/never-created' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
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
});
