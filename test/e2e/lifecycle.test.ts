/**
 * What an operator sees across restarts and signals: `npm start` stops cleanly on SIGTERM while
 * requests are in flight, data survives a restart on the same DATA_DIR, a SIGKILLed launcher
 * leaves nothing behind that blocks the next start, and the token protects the endpoint.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples } from '../support/images.js';
import { freePort, tempDir } from '../support/servers.js';
import { getJson, postJson, REPO_ROOT, startStack, stopAllStacks } from '../support/stack.js';

afterAll(stopAllStacks);

const dir = tempDir('e2e-lifecycle');
afterAll(() => dir.remove());

/** Sends headers and half the body now; `finish()` sends the rest and resolves with status and body. */
function slowPost(url: string, body: string) {
  const half = Math.floor(body.length / 2);
  const { hostname, port, pathname } = new URL(url);
  let resolveResponse: (r: { status: number; body: string }) => void;
  let rejectResponse: (e: Error) => void;
  const response = new Promise<{ status: number; body: string }>((res, rej) => ((resolveResponse = res), (rejectResponse = rej)));
  const req = request({ hostname, port, path: pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    let text = '';
    res.on('data', (d: Buffer) => (text += d.toString()));
    res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, body: text }));
  });
  req.on('error', (e) => rejectResponse(e));
  req.write(body.slice(0, half));
  return {
    finish: () => {
      req.end(body.slice(half));
      return response;
    },
  };
}

/** Whether a process exists (signal 0 probes without sending). */
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('lifecycle', () => {
  let eventId = '';
  let imageUrl = '';

  it('npm start finishes in-flight requests on SIGTERM and exits 0 within 10 s', async () => {
    const stack = await startStack({ dataDir: dir.path, command: 'npm-start' });
    const body = exampleEvent({ device: 'cam-lifecycle' });
    (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = samples.gif.bytes.toString('base64');
    // The README's promise: the example answers on the first try right after the start-up line.
    const first = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'cam-first-try' }));
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 200 }); // a refusal's body names what refused
    const inFlight = slowPost(`${stack.api}/dynamic-events`, JSON.stringify(body));
    await new Promise((r) => setTimeout(r, 300));
    const stopped = stack.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const res = await inFlight.finish();
    expect(res.status, res.body).toBe(200);
    const event = JSON.parse(res.body) as { id: string; images: string[] };
    eventId = event.id;
    imageUrl = event.images[1]!;
    const { code, ms } = await stopped;
    expect(code, stack.output()).toBe(0);
    expect(ms).toBeLessThan(10_000);
    // Without ADMIN_TOKEN the launcher says how to turn the settings console on.
    expect(stack.output()).toContain('"msg":"settings console off: start with ADMIN_TOKEN=$(openssl rand -hex 32) npm start to turn it on"');
  });

  it('a restart on the same DATA_DIR keeps events, registrations and images', async () => {
    const stack = await startStack({ dataDir: dir.path, env: { DYNAMIC_EVENTS_TOKEN: 's3cret-token' } });
    try {
      const event = await getJson(`${stack.api}/dynamic-events/${eventId}`, { authorization: 'Bearer s3cret-token' });
      expect(event.status).toBe(200);
      expect((await getJson(`${stack.api}/devices/cam-lifecycle`, { authorization: 'Bearer s3cret-token' })).status).toBe(200);
      // Same port layout is not guaranteed across starts, so fetch the image by key on this stack.
      const key = imageUrl.split('/').pop()!;
      const image = await fetch(`${stack.api}/media/${key}`, { headers: { authorization: 'Bearer s3cret-token' } });
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer()).equals(samples.gif.bytes)).toBe(true);

      // With a token configured, the POST needs it.
      const url = `${stack.api}/dynamic-events`;
      const missing = await postJson(url, exampleEvent({ device: 'cam-auth' }));
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(missing.body).toHaveProperty('error');
      const wrong = await postJson(url, exampleEvent({ device: 'cam-auth' }), { authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      expect((await getJson(`${stack.api}/devices/cam-auth`, { authorization: 'Bearer s3cret-token' })).status).toBe(404);
      const right = await postJson(url, exampleEvent({ device: 'cam-auth' }), { authorization: 'Bearer s3cret-token' });
      expect(right.status).toBe(200);
    } finally {
      expect((await stack.stop('SIGTERM')).code).toBe(0);
    }
  });

  it('starts again after the launcher was SIGKILLed', async () => {
    // The previous start had a token: the instance requires one from then on (it never opens by accident).
    const env = { DYNAMIC_EVENTS_TOKEN: 's3cret-token' };
    const auth = { authorization: 'Bearer s3cret-token' };
    const first = await startStack({ dataDir: dir.path, env });
    const postmaster = Number((await readFile(join(dir.path, 'postgres', 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    await first.stop('SIGKILL');
    // The services and the embedded Postgres notice their parent is gone and shut down; the next start must not be blocked.
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && isRunning(postmaster)) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isRunning(postmaster)).toBe(false);
    const second = await startStack({ dataDir: dir.path, defaultPublicBaseUrl: true, env });
    try {
      expect((await getJson(`${second.api}/dynamic-events/${eventId}`, auth)).status).toBe(200);
      const body = exampleEvent({ device: 'cam-after-kill' });
      (body.event.event_data.event_additional_properties as Record<string, string>).base64_image = samples.webp.bytes.toString('base64');
      const res = await postJson(`${second.api}/dynamic-events`, body, auth);
      expect(res.status).toBe(200);
      // Without PUBLIC_BASE_URL, image URLs point at the gateway's own port on localhost.
      expect((res.body!.images as string[])[1]).toMatch(new RegExp(`^http://localhost:${second.port}/api/platform/dh/media/[0-9a-f]{64}\\.webp$`));
    } finally {
      expect((await second.stop('SIGTERM')).code).toBe(0);
    }
  });
});

// After the describe above: its stacks ran on `dir` with DYNAMIC_EVENTS_TOKEN set.
describe('lifecycle: the token requirement outlives the bootstrap token', () => {
  it('once a token existed, dropping DYNAMIC_EVENTS_TOKEN leaves the instance closed until an admin opens it', async () => {
    const admin = { authorization: `Bearer ${'a'.repeat(40)}` };
    const stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN: 'a'.repeat(40) } });
    try {
      // With ADMIN_TOKEN the launcher prints the settings console's URL, which the gateway serves.
      const consoleUrl = `${stack.api}/settings/dynamic-events/`;
      await expect.poll(() => stack.output()).toContain(`"msg":"settings console: ${consoleUrl} (sign in with ADMIN_TOKEN)"`);
      expect((await fetch(consoleUrl)).headers.get('content-security-policy')).toContain("default-src 'none'");
      const closed = await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'cam-closed' }));
      expect(closed.status).toBe(401);
      const tokens = await getJson(`${stack.api}/settings/dynamic-events/tokens`, admin);
      // The bootstrap token is listed, revoked now that its setting is gone.
      expect(tokens.body?.tokens).toEqual([expect.objectContaining({ name: 'DYNAMIC_EVENTS_TOKEN', read_only: true, revoked_at: expect.any(String) })]);
      expect((await getJson(`${stack.api}/settings/dynamic-events`, admin)).body).toEqual({ require_token: true, access: 'closed' });
      const open = await fetch(`${stack.api}/settings/dynamic-events`, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json' }, body: '{"require_token":false}' });
      expect(await open.json()).toEqual({ require_token: false, access: 'open' });
      // Every gateway learns it within its sync interval (1 s by default).
      await expect.poll(async () => (await postJson(`${stack.api}/dynamic-events`, exampleEvent({ device: 'cam-open' }))).status, { timeout: 5000 }).toBe(200);
    } finally {
      expect((await stack.stop('SIGTERM')).code).toBe(0);
    }
  });
});

describe('lifecycle: a bad setting', () => {
  it('stops with exit 1 and names the variable when a setting is bad', async () => {
    const bad = tempDir('e2e-bad-config');
    const child = spawn(process.execPath, ['deploy/local/dist/start.js'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: bad.path,
        PORT: 'abc',
        REGISTRY_GRPC_PORT: String(await freePort()),
        MEDIA_GRPC_PORT: String(await freePort()),
        REGISTRY_METRICS_PORT: String(await freePort()),
        MEDIA_METRICS_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    bad.remove();
    expect(code).toBe(1);
    expect(output).toContain('PORT must be an integer');
    expect(output).not.toContain('PUBLIC_BASE_URL');
  });
});
