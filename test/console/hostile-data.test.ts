/**
 * Hostile data in the console: every name, property and URL it shows comes from unauthenticated
 * devices and vendors. A device named `<img src=x onerror=alert(1)>`, properties holding
 * `<script>` and `javascript:` URLs, and image URLs pointing elsewhere must appear as text (or as
 * a plain link for http(s)), load nothing from another origin and run nothing: the test fails on
 * any dialog, script error, console error or CSP violation, and on any request leaving the origin.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, CONSOLE_CSP, consoleEvent, consoleUrl, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';

const NO_BROWSER = chromiumPath() === undefined;
const DEVICE = '<img src=x onerror=alert(1)>';
const OBJECT_NAME = '<script>alert(2)</script>';
const DISPLAY_NAME = '<b onmouseover=alert(3)>hover</b>';
const PROPERTIES = { note: '<script>alert(4)</script>', link: 'javascript:alert(5)', markup: '<a href="javascript:alert(6)">click</a>' };
const IMAGES = ['javascript:alert(7)', 'https://evil.example/track.png', 'data:image/svg+xml,<svg onload=alert(8)>'];
const CLIPS = ['javascript:alert(9)', 'https://cdn.example.com/clips/ok.mp4'];

const dir = tempDir('console-hostile');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;
let eventId = '';
/** Every URL the page requested. */
const requested: string[] = [];

beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  const body = consoleEvent({ device: DEVICE, objectName: OBJECT_NAME, properties: PROPERTIES, images: IMAGES, clips: CLIPS });
  (body.event.event_type as { display_name: string }).display_name = DISPLAY_NAME;
  const posted = await postEvent(stack, body);
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  eventId = String(posted.body?.id);
  browser = await launchChromium();
  view = await openConsole(browser, stack);
  view.page.on('request', (request) => requested.push(request.url()));
  await signIn(view.page);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

describe.skipIf(NO_BROWSER)('settings console with hostile data', () => {
  it('shows names from devices as text on Devices, Objects and Event types', async () => {
    const { page } = view;
    await goTo(page, 'Devices');
    await page.getByRole('table', { name: 'Devices' }).getByRole('cell', { name: DEVICE, exact: true }).waitFor();
    await goTo(page, 'Objects');
    await page.getByRole('table', { name: 'Objects' }).getByRole('cell', { name: OBJECT_NAME, exact: true }).waitFor();
    await goTo(page, 'Event types');
    await page.getByRole('table', { name: 'Event types' }).getByRole('cell', { name: DISPLAY_NAME, exact: true }).waitFor();
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
  });

  it('shows properties and URLs of an event as text, external http(s) URLs as links only', async () => {
    const { page } = view;
    await goTo(page, 'Events');
    // The row names the object's device and the type's display name (its id on hover), as text.
    const table = page.getByRole('table', { name: 'Events' });
    await table.getByRole('cell', { name: DEVICE, exact: true }).waitFor();
    expect(await table.getByRole('cell', { name: DISPLAY_NAME, exact: true }).getAttribute('title')).toBe('motion_detected');
    await page.getByRole('button', { name: `Details ${eventId}` }).click();
    const details = page.getByRole('region', { name: 'Event details' });
    for (const value of [...Object.values(PROPERTIES), IMAGES[0], IMAGES[2], CLIPS[0]]) {
      await details.getByText(value as string, { exact: true }).waitFor();
    }
    expect(await details.getByRole('link', { name: 'https://evil.example/track.png' }).getAttribute('href')).toBe('https://evil.example/track.png');
    expect(await details.getByRole('link', { name: 'https://evil.example/track.png' }).getAttribute('rel')).toBe('noopener noreferrer');
    expect(await details.getByRole('link').count()).toBe(2);
    expect(await page.locator('[href^="javascript:" i], [src^="javascript:" i], [src^="data:" i], [onerror], [onload], [onmouseover]').count()).toBe(0);
    expect(await details.locator('img, script, svg').count()).toBe(0);
    await details.getByText(PROPERTIES.note, { exact: true }).hover();
  });

  it('requested nothing outside its origin, ran nothing, and sent the headers on every console response, a 404 included', async () => {
    expect(requested.filter((url) => !url.startsWith(`${stack.baseUrl}/`))).toEqual([]);
    expect(view.problems()).toEqual([]);
    // Last: the browser logs this 404 as a console error of its own.
    const missing = await view.page.goto(`${consoleUrl(stack)}assets/no-such-file.js`);
    expect(missing?.status()).toBe(404);
    const responses = view.consoleResponses();
    expect(responses.some((res) => res.status === 404)).toBe(true);
    for (const res of responses) expect(res, res.url).toMatchObject({ csp: CONSOLE_CSP, nosniff: 'nosniff', referrer: 'no-referrer' });
  });
});
