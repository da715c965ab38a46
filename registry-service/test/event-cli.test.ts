/**
 * The operator CLI's events commands against the real registry on PostgreSQL: list (filters,
 * paging), get, and watch (one JSON line per event as it commits, resumable with --after), in the
 * HTTP API's shapes; bad command lines exit 2 before any call.
 */
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { runCli } from '../src/cli/run.js';
import { sampleEvent, TEST_INTERNAL_TOKEN, useFreshRegistry, type TestRegistry } from './helpers.js';

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

describe.skipIf(!up)('events from the CLI, against the registry', () => {
  it('lists with filters and pages, and gets one event, as the HTTP API shows them', async () => {
    const a = await t.api.recordEvent(sampleEvent({ source: { deviceName: 'cli-cam-a' } }));
    await t.api.recordEvent(sampleEvent({ source: { deviceName: 'cli-cam-b' } }));
    await t.api.recordEvent(sampleEvent({ source: { deviceName: 'cli-cam-a' } }));
    const first = await cli('events', 'list', '--device-name', 'cli-cam-a', '--limit', '1');
    expect(first.code, first.stderr).toBe(0);
    const page = JSON.parse(first.stdout) as { events: Array<Record<string, unknown>>; next_page_token: string | null };
    expect(page.events).toHaveLength(1);
    expect(page.next_page_token).toEqual(expect.any(String));
    const rest = JSON.parse((await cli('events', 'list', '--device-name', 'cli-cam-a', '--page-token', page.next_page_token!)).stdout) as typeof page;
    expect(rest).toEqual({ events: [expect.objectContaining({ id: a.event!.id })], next_page_token: null });

    const got = JSON.parse((await cli('events', 'get', a.event!.id)).stdout) as Record<string, unknown>;
    expect(got).toEqual({
      id: a.event!.id,
      domain: 'acme.camera.lpr',
      event_type: 'plate_detected',
      rels: ['/objects/acme.camera.lpr.channel-1'],
      images: ['https://example.com/a.jpg'],
      video_clips: [],
      event_additional_properties: { plate: 'AB-123-CD' },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      updated_at: expect.stringMatching(/Z$/),
      token_id: null,
      occurred_at: null,
    });
    const missing = await cli('events', 'get', '00000000-0000-4000-8000-000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found/);
  });

  it('watches: one line per event as it commits, from a cursor with --after, for --for seconds', async () => {
    let stdout = '';
    const out = { stdout: (text: string) => void (stdout += text), stderr: () => undefined };
    const argv = ['--address', t.address, 'events', 'watch', '--domain', 'acme.watch.cli', '--for', '4'];
    const watching = runCli(argv, { REGISTRY_INTERNAL_TOKEN: TEST_INTERNAL_TOKEN }, out);
    // A watch starts at the newest commit once it is open: events are sent until one shows.
    let recorded;
    for (let attempt = 0; stdout === '' && attempt < 20; attempt++) {
      recorded = await t.api.recordEvent(sampleEvent({ source: { objectDomain: 'acme.watch.cli', deviceName: 'cli-watch' } }));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await t.api.recordEvent(sampleEvent({ source: { objectDomain: 'acme.other.cli', deviceName: 'cli-watch' } }));
    const second = await t.api.recordEvent(sampleEvent({ source: { objectDomain: 'acme.watch.cli', deviceName: 'cli-watch' } }));
    const run = { code: await watching, stdout };
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { cursor: string; event: { id: string } });
    expect(lines.map((l) => l.event.id).slice(-2)).toEqual([recorded!.event!.id, second.event!.id]);

    const resumed = await cli('events', 'watch', '--domain', 'acme.watch.cli', '--after', lines.at(-2)!.cursor, '--for', '3');
    expect(resumed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { event: { id: string } }).event.id)).toEqual([second.event!.id]);
  });

  it('refuses a bad command line with exit 2, before any call', async () => {
    expect((await cli('events', 'watch', '--for', '0')).code).toBe(2);
    expect((await cli('events', 'list', '--since', 'yesterday')).code).toBe(2);
    expect((await cli('events', 'get')).code).toBe(2);
    expect((await cli('events', 'list', '--after', 'x')).code).toBe(2);
  });
});
