/**
 * The operator CLI (`node registry-service/dist/cli/main.js`): its commands against a real registry,
 * in process through runCli, and as the built program against the built registry started with
 * DYNAMIC_EVENTS_TOKEN (the bootstrap row is there from the first call, and no secret is logged).
 */
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newTokenSecret } from '@dynamic-events/proto';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import type { TokenJson } from '../src/cli/token-json.js';
import { createTestDatabase, freePort, postgresAvailable } from '../../test/support/servers.js';
import { TEST_INTERNAL_TOKEN, unique, useFreshRegistry } from './helpers.js';

const up = await postgresAvailable();

let address: string;
if (up) useFreshRegistry((started) => (address = started.address));

/** Whatever one command printed: a token (with its secret as `token` when created), `{tokens}` or `{require_token}`. */
type Printed = Omit<TokenJson, 'token'> & { token: string; tokens: TokenJson[]; require_token: boolean };

/** Runs the CLI in process; resolves with its exit code, stdout parsed as JSON when it succeeded, and stderr. */
async function cli(...argv: string[]): Promise<{ code: number; json: Printed; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN };
  const code = await runCli(['--address', address, ...argv], env, { stdout: (s) => void (stdout += s), stderr: (s) => (stderr += s) });
  return { code, json: code === 0 ? (JSON.parse(stdout) as Printed) : (undefined as unknown as Printed), stderr };
}

describe.skipIf(!up)('registry CLI commands', () => {
  it('creates, lists, gets, updates and revokes a token, printing the HTTP API shapes', async () => {
    const name = unique('ops');
    const policy = { may_create: ['devices'], domains: ['acme.camera.*'], max_devices: 10, rate: { per_second: 2.5, burst: 5 } };
    const created = await cli('tokens', 'create', '--name', name, '--policy', JSON.stringify(policy), '--expires-at', '2999-01-31T12:00:00.5+01:00');
    expect(created.code).toBe(0);
    const { token: secret, ...token } = created.json;
    expect(secret).toMatch(/^dhe_/);
    const id = token.id;
    expect(token).toEqual({
      id,
      name,
      prefix: secret.slice(0, 12),
      policy,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/),
      last_used_at: null,
      expires_at: '2999-01-31T11:00:00.500000000Z',
      revoked_at: null,
      read_only: false,
    });
    const listed = await cli('tokens', 'list');
    expect(listed.json.tokens).toContainEqual(token);
    expect(JSON.stringify(listed.json)).not.toContain(secret);
    expect((await cli('tokens', 'get', id)).json).toEqual(token);

    const updated = await cli('tokens', 'update', id, '--name', `${name}-2`, '--no-expiry', '--policy', '{}');
    expect(updated.json).toMatchObject({ name: `${name}-2`, expires_at: null, policy: {} });
    const revoked = await cli('tokens', 'revoke', id);
    expect(revoked.json.revoked_at).toEqual(expect.any(String));
    expect(await cli('tokens', 'revoke', id)).toEqual(revoked);
  });

  it('shows and sets the token requirement', async () => {
    expect((await cli('auth', 'show')).json).toEqual({ require_token: true });
    expect((await cli('auth', 'set', '--require-token', 'false')).json).toEqual({ require_token: false });
    expect((await cli('auth', 'show')).json).toEqual({ require_token: false });
    expect((await cli('auth', 'set', '--require-token', 'true')).json).toEqual({ require_token: true });
  });

  it("exits 1 with the registry's message when it refuses, or when it cannot be reached", async () => {
    const missing = await cli('tokens', 'get', '0190d3c2-0000-7000-8000-000000000000');
    const used = `using the registry at ${address} (--address)\n`;
    expect(missing).toEqual({ code: 1, json: undefined, stderr: `${used}error: token 0190d3c2-0000-7000-8000-000000000000 not found (field id)\n` });
    // Which kinds exist is the registry's rule (the CLI checks only the policy's shape and numbers).
    const refused = await cli('tokens', 'create', '--name', unique('bad'), '--policy', '{"may_create": ["users"]}');
    expect(refused).toMatchObject({ code: 1, stderr: `${used}error: policy.may_create[0] must be one of devices, objects, event_types (field policy.may_create[0])\n` });
    const code = await runCli(['tokens', 'list'], { REGISTRY_GRPC_PORT: '1' }, { stdout: () => undefined, stderr: (s) => expect(s).toContain('127.0.0.1:1') });
    expect(code).toBe(1);
  });

  it('presents REGISTRY_INTERNAL_TOKEN; without it (or with another one) the registry refuses, and the CLI says what to set', async () => {
    for (const env of [{}, { REGISTRY_INTERNAL_TOKEN: `${TEST_INTERNAL_TOKEN}-other` }]) {
      let stderr = '';
      const code = await runCli(['--address', address, 'tokens', 'list'], env, { stdout: () => undefined, stderr: (s) => (stderr += s) });
      expect(code).toBe(1);
      expect(stderr).toContain('TokenService needs the internal credential');
      expect(stderr).toContain('set REGISTRY_INTERNAL_TOKEN to the registry\'s value');
      expect(stderr).not.toContain(TEST_INTERNAL_TOKEN);
    }
  });
});

describe.skipIf(!up)('registry CLI command lines', () => {
  it.each([
    [['tokens', 'frob'], 'unknown command: tokens frob'],
    [['tokens', 'create'], 'tokens create needs --name'],
    [['tokens', 'create', '--name', 'x', '--policy', '{nope'], '--policy must be JSON'],
    [['tokens', 'create', '--name', 'x', '--policy', '{"domain": ["a"]}'], '--policy: policy.domain is not a policy field'],
    [['tokens', 'create', '--name', 'x', '--policy', '{"max_devices": "5"}'], '--policy: policy.max_devices must be a number'],
    [['tokens', 'create', '--name', 'x', '--expires-at', '2027-02-30T00:00:00Z'], '--expires-at must be an RFC 3339 date-time'],
    [['tokens', 'create', '--name', 'x', '--expires-at', '9999-12-31T23:59:59.999999999Z'], '--expires-at must be an RFC 3339 date-time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z'],
    [['tokens', 'create', '--name', 'a', '--name', 'b'], '--name is given more than once'],
    [['tokens', 'update', 'id', '--policy', '{}', '--policy', '{}'], '--policy is given more than once'],
    [['--address', '127.0.0.1:1', '--address', '127.0.0.1:2', 'tokens', 'list'], '--address is given more than once'],
    [['tokens', 'create', '--name', 'x', '--policy', '{"rate": {"per_second": 1, "burst": 4294967296}}'], '--policy: policy.rate.burst must be at most 1000000'],
    [['tokens', 'update', 'id', '--policy', '{"rate": {"per_second": 1e-9, "burst": 1}}'], '--policy: policy.rate.per_second must be a number from 0.001 to 1000000'],
    [['tokens', 'get'], 'tokens get takes one token id'],
    [['tokens', 'list', '--name', 'x'], 'tokens list does not take --name'],
    [['tokens', 'update', 'id', '--no-expiry', '--expires-at', '2999-01-01T00:00:00Z'], '--expires-at and --no-expiry exclude each other'],
    [['auth', 'set', '--require-token', 'yes'], '--require-token must be true or false'],
    [['tokens', 'list', '--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 with the usage for %j', async (argv, message) => {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: node registry-service/dist/cli/main.js');
  });
});

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

/** Runs the built CLI; resolves with its exit code, stdout and stderr. */
async function builtCli(env: Record<string, string>, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [CLI, ...argv], { env: { ...BASE_ENV, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** Runs `node CLI argv… | reader` in bash: the CLI's exit code and stderr, the reader's output. */
async function piped(env: Record<string, string>, reader: string, ...argv: string[]): Promise<{ code: number; stderr: string; read: string }> {
  const script = `"$NODE" "$CLI" "$@" 2>"$ERR" | ${reader}; echo "exit=\${PIPESTATUS[0]}"`;
  const err = `/tmp/token-cli-${process.pid}-${Math.random().toString(36).slice(2)}.err`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script, 'piped', ...argv], { env: { ...BASE_ENV, ...env, NODE: process.execPath, CLI, ERR: err } });
  const { readFile, rm } = await import('node:fs/promises');
  const stderr = await readFile(err, 'utf8');
  await rm(err);
  const [, code = ''] = /exit=(\d+)\n$/.exec(stdout) ?? [];
  return { code: Number(code), stderr, read: stdout.replace(/exit=\d+\n$/, '') };
}

/**
 * `tokens create … | head -3` shows the one-time secret (it comes first), and a reader that is gone
 * before anything is written gets no secret but an operator who is told which token to revoke.
 */
async function expectSecretThroughPipes(env: Record<string, string>): Promise<void> {
  const head = await piped(env, 'head -3', 'tokens', 'create', '--name', 'piped-head');
  expect(head.code).toBe(0);
  expect(head.read).toMatch(/^\{\n {2}"token": "dhe_[A-Za-z0-9_-]{43}",\n {2}"id": "[0-9a-f-]{36}",\n$/);
  const gone = await piped(env, 'true', 'tokens', 'create', '--name', 'piped-closed');
  const [, id = 'none'] = /token ([0-9a-f-]{36}) was created/.exec(gone.stderr) ?? [];
  expect({ code: gone.code, read: gone.read }).toEqual({ code: 1, read: '' });
  expect(gone.stderr).toContain(`stdout closed before the token's secret was written: token ${id} was created; revoke it`);
  expect(gone.stderr).not.toMatch(/dhe_|at .*\.js/);
  const revoked = await builtCli(env, 'tokens', 'revoke', id);
  expect(revoked.code).toBe(0);
}

describe.skipIf(!up)('node registry-service/dist/cli/main.js against node registry-service/dist/main.js', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('lists the bootstrap token from the first call, creates and revokes tokens, and no secret reaches the log', async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const port = await freePort();
    const bootstrap = newTokenSecret();
    const internal = newTokenSecret();
    const env = { DATABASE_URL: db.url, REGISTRY_GRPC_PORT: String(port), GRPC_HOST: '127.0.0.1', METRICS_PORT: '0', DYNAMIC_EVENTS_TOKEN: bootstrap, REGISTRY_INTERNAL_TOKEN: internal };
    const registry = spawn(process.execPath, [MAIN], { env: { ...BASE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    registry.stdout.on('data', (d: Buffer) => (log += d.toString()));
    registry.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise((resolve) => registry.once('exit', resolve));
    cleanups.push(() => void registry.kill('SIGKILL'));
    for (const deadline = Date.now() + 20_000; !log.includes('registry-service listening'); ) {
      if (Date.now() > deadline || registry.exitCode !== null) throw new Error(`registry did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // As in a registry pod: the CLI finds the registry's port and credential in the environment.
    const local = { REGISTRY_GRPC_PORT: String(port), REGISTRY_INTERNAL_TOKEN: internal };

    const listed = await builtCli(local, 'tokens', 'list');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tokens).toEqual([expect.objectContaining({ name: 'DYNAMIC_EVENTS_TOKEN', read_only: true, prefix: bootstrap.slice(0, 12) })]);
    const created = await builtCli(local, 'tokens', 'create', '--name', 'ops');
    expect(created.code).toBe(0);
    const { id, token: secret } = JSON.parse(created.stdout) as { id: string; token: string };
    const revoked = await builtCli(local, 'tokens', 'revoke', id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).revoked_at).toEqual(expect.any(String));
    await expectSecretThroughPipes(local);
    const refused = await builtCli(local, 'tokens', 'revoke', JSON.parse(listed.stdout).tokens[0].id);
    const used = `using the registry at 127.0.0.1:${port} (REGISTRY_GRPC_PORT)\n`;
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: `${used}error: the bootstrap token changes only with DYNAMIC_EVENTS_TOKEN (field id)\n` });

    registry.kill('SIGTERM');
    await exited;
    expect(log).toContain('"bootstrap":"created"');
    for (const leaked of [bootstrap, secret, bootstrap.slice(12), secret.slice(12), internal, internal.slice(12)]) expect(log).not.toContain(leaked);
  });
});
