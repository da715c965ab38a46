/**
 * The console in a real Chromium against a stack started here (ADMIN_TOKEN set): a wrong credential
 * refused, sign-in, a token created with a policy and its secret shown once, an event posted with it
 * over HTTP appearing live with its stored image as a loaded thumbnail, filters, paging back through
 * history, and revoking the token so that its next POST is refused. Nothing may open a dialog, throw,
 * log an error or break the CSP meanwhile.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { getJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, CONSOLE_CSP, consoleEvent, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';
import { gradientPng } from '../support/images.js';

/** Events posted before the token, in one domain: more than one page (50) of history. */
const HISTORY = 60;
const HISTORY_DOMAIN = 'history.camera';
/** How long a posted event may take to appear live (the issue asks for 2 s; slack for a loaded CI box). */
const LIVE_DEADLINE_MS = 10_000;

/** Without a browser the file is skipped (under CI=true chromiumPath fails instead). */
const NO_BROWSER = chromiumPath() === undefined;
const dir = tempDir('console-flows');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;
/** The token the console creates; the events and the revocation use it. */
let secret = '';

// One stack, browser and page for the whole file: each step starts where the one before left off.
beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  // The instance is open until the first token: these need none.
  for (let n = 0; n < HISTORY; n++) {
    const answer = await postEvent(stack, consoleEvent({ domain: HISTORY_DOMAIN, device: 'camera-yard-01', properties: { seq: String(n) } }));
    expect(answer.status).toBe(200);
  }
  browser = await launchChromium();
  view = await openConsole(browser, stack);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

describe.skipIf(NO_BROWSER)('settings console: sign-in and a new token', () => {
  it('refuses a wrong credential with the API message, then signs in with the admin token', async () => {
    const { page } = view;
    const refusal = await getJson(`${stack.api}/settings/dynamic-events`, { Authorization: 'Bearer not-the-admin-token' });
    expect(refusal.status).toBe(401);
    await page.getByLabel('Admin token').fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(refusal.body?.error);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  it('creates a token with a policy and shows its secret once', async () => {
    const { page } = view;
    await goTo(page, 'Tokens');
    await page.getByRole('button', { name: 'New token' }).click();
    await page.getByLabel('Name', { exact: true }).fill('vendor-cam');
    await page.getByLabel('May create devices').uncheck();
    await page.getByLabel('Domains').fill('acme.camera.*\nyard.camera.*');
    await page.getByLabel('Max objects').fill('10');
    await page.getByLabel('Rate per second').fill('50');
    await page.getByLabel('Burst').fill('100');
    await page.getByLabel('Expires at').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('region', { name: 'New token secret' });
    secret = (await shown.locator('code').textContent()) ?? '';
    expect(secret).toMatch(/^dhe_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy secret' }).click();
    // With clipboard access it is copied, without it selected for Ctrl+C: either way the status says which.
    await expect.poll(() => shown.getByRole('status').textContent()).toMatch(/^(Copied to the clipboard|Selected: press Ctrl\+C)/);

    const listed = await getJson(`${stack.api}/settings/dynamic-events/tokens`, { Authorization: `Bearer ${ADMIN_TOKEN}` });
    const token = (listed.body?.tokens as Array<Record<string, unknown>>).find((t) => t.name === 'vendor-cam');
    expect(token?.policy).toEqual({ may_create: ['objects', 'event_types'], domains: ['acme.camera.*', 'yard.camera.*'], max_objects: 10, rate: { per_second: 50, burst: 100 } });
    // "Expires at" is read as UTC.
    expect(Date.parse(String(token?.expires_at))).toBe(Date.parse('2099-01-01T00:00:00Z'));
    const row = page.getByRole('table', { name: 'Tokens' }).getByRole('row').filter({ hasText: 'vendor-cam' });
    await expect.poll(() => row.textContent()).toContain('domains acme.camera.*, yard.camera.*');
    expect(await row.textContent()).toContain(secret.slice(0, 12));
    expect(await row.textContent()).not.toContain(secret);

    // Shown once: leaving the screen forgets it.
    await goTo(page, 'Events');
    await goTo(page, 'Tokens');
    await page.getByRole('table', { name: 'Tokens' }).getByRole('row').filter({ hasText: 'vendor-cam' }).waitFor();
    expect(await page.getByRole('region', { name: 'New token secret' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

});

describe.skipIf(NO_BROWSER)('settings console: editing a token', () => {
  it('shows a refused field with the API message next to it, then saves a valid change', async () => {
    const { page } = view;
    await page.getByRole('button', { name: 'Edit vendor-cam' }).click();
    const burst = page.getByLabel('Burst');
    await burst.fill('0');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => burst.getAttribute('aria-invalid')).toBe('true');
    const described = (await burst.getAttribute('aria-describedby')) ?? '';
    const messages = await Promise.all(described.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(messages.some((text) => text?.startsWith('policy.rate.burst '))).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);

    await burst.fill('200');
    await page.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('table', { name: 'Tokens' }).getByRole('row').filter({ hasText: 'vendor-cam' });
    await expect.poll(() => row.textContent()).toContain('50 events/s (burst 200)');
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
  });
});

describe.skipIf(NO_BROWSER)('settings console: events', () => {
  it('shows an event posted with the token live, with its stored image as a loaded thumbnail', async () => {
    const { page } = view;
    await goTo(page, 'Events');
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Live/ }).count(), { timeout: LIVE_DEADLINE_MS }).toBe(1);
    const body = consoleEvent({ device: 'camera-yard-01', properties: { zone: 'loading dock', base64_image: gradientPng(64, 48) }, clips: ['https://cdn.example.com/clips/dock.mp4'] });
    const posted = await postEvent(stack, body, secret);
    expect(posted.status).toBe(200);
    const id = String(posted.body?.id);
    const answeredAt = Date.now();

    const details = page.getByRole('button', { name: `Details ${id}` });
    await details.waitFor({ timeout: LIVE_DEADLINE_MS });
    // Printed, not asserted: the figure depends on the machine (the aim is 2 s).
    console.info(`console live: the event's row appeared ${Date.now() - answeredAt} ms after its 200`);
    await details.click();
    const region = page.getByRole('region', { name: 'Event details' });
    await expect.poll(() => region.textContent()).toContain('loading dock');
    expect(await region.getByRole('link', { name: 'https://cdn.example.com/clips/dock.mp4' }).getAttribute('rel')).toBe('noopener noreferrer');
    const thumbnail = region.getByRole('img', { name: 'Stored image 1' });
    await expect.poll(() => thumbnail.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(64);
    expect(await thumbnail.getAttribute('src')).toMatch(new RegExp(`^/api/platform/dh/media/[0-9a-f]{64}\\.png$`));
  });

  it('filters, and pages back through history with "Older events"', async () => {
    const { page } = view;
    await page.getByLabel('Domain', { exact: true }).fill(HISTORY_DOMAIN);
    await page.getByRole('button', { name: 'Apply' }).click();
    const rows = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    expect(await rows.filter({ hasNotText: HISTORY_DOMAIN }).count()).toBe(0);

    await page.getByRole('button', { name: 'Older events' }).click();
    await expect.poll(() => rows.count()).toBe(HISTORY);
    await expect.poll(() => page.getByRole('button', { name: 'Older events' }).isDisabled()).toBe(true);
    // The oldest is last: its details hold seq 0.
    await rows.last().getByRole('button').click();
    await expect.poll(() => page.getByRole('region', { name: 'Event details' }).textContent()).toMatch(/seq\s*0(?!\d)/);

    await page.getByLabel('Domain', { exact: true }).fill('');
    await page.getByLabel('Device', { exact: true }).fill('no-such-device');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Events' }).textContent()).toContain('No events match.');
    await page.getByLabel('Device', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
  });

});

describe.skipIf(NO_BROWSER)('settings console: revoking, and what never happens', () => {
  it('revokes the token after a confirmation; its next POST is refused', async () => {
    const { page } = view;
    await goTo(page, 'Tokens');
    await page.getByRole('button', { name: 'Revoke vendor-cam' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke vendor-cam' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    const row = page.getByRole('table', { name: 'Tokens' }).getByRole('row').filter({ hasText: 'vendor-cam' });
    await expect.poll(() => row.textContent()).toContain('revoked');
    expect(await page.getByRole('button', { name: 'Revoke vendor-cam' }).count()).toBe(0);
    const refused = await postEvent(stack, consoleEvent({ device: 'camera-yard-01' }), secret);
    expect(refused.status).toBe(401);
  });

  it('turns the instance\'s "Require a token" off', async () => {
    const { page } = view;
    const setting = page.getByLabel('Require a token');
    await expect.poll(() => setting.isChecked()).toBe(true);
    await setting.uncheck();
    const read = async () => (await getJson(`${stack.api}/settings/dynamic-events`, { Authorization: `Bearer ${ADMIN_TOKEN}` })).body?.require_token;
    await expect.poll(read).toBe(false);
    expect(await setting.isChecked()).toBe(false);
  });

  it('ran no dialog, script error, console error or CSP violation, and sent the headers on every console response', () => {
    expect(view.problems()).toEqual([]);
    const responses = view.consoleResponses();
    expect(responses.length).toBeGreaterThanOrEqual(3);
    for (const res of responses) expect(res, res.url).toMatchObject({ csp: CONSOLE_CSP, nosniff: 'nosniff', referrer: 'no-referrer' });
  });
});
