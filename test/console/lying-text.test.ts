/**
 * Untrusted text that would lie when shown: a right-to-left override turning
 * `https://evil.example/\u202Egnp.exe` into "…/exe.png" on screen, a host of Cyrillic letters
 * reading as "apple.com", an object named `safe\u202Etxt.exe` reading "safeexe.txt". The console
 * shows a link by its parsed href (percent-encoded, the host in punycode) and every control and
 * format character as a visible escape, as the API's messages do. The sign-in field asks no
 * password manager to keep the admin token.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, consoleEvent, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';

const NO_BROWSER = chromiumPath() === undefined;
const OBJECT_NAME = 'safe\u202Etxt.exe';
const PROPERTIES = { note: 'paid\u202E\u2066 in full', lines: 'one\ntwo' };
const IMAGES = ['https://evil.example/\u202Egnp.exe', 'https://\u0430\u0440\u0440\u04CF\u0435.com/'];
const CLIPS = ['javascript:alert(1)\u202E'];

const dir = tempDir('console-lying-text');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;
let eventId = '';

beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  const body = consoleEvent({ objectName: OBJECT_NAME, properties: PROPERTIES, images: IMAGES, clips: CLIPS });
  (body.event.event_type as { display_name: string }).display_name = 'Motion\u200F';
  const posted = await postEvent(stack, body);
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  eventId = String(posted.body?.id);
  browser = await launchChromium();
  view = await openConsole(browser, stack);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

describe.skipIf(NO_BROWSER)('settings console with text that would lie', () => {
  it('the sign-in field has autocomplete="off"', async () => {
    expect(await view.page.getByLabel('Admin token').getAttribute('autocomplete')).toBe('off');
    await signIn(view.page);
  });

  it('shows control and bidirectional formatting characters as escapes in names', async () => {
    const { page } = view;
    await goTo(page, 'Objects');
    await page.getByRole('table', { name: 'Objects' }).getByRole('cell', { name: 'safe\\u202etxt.exe', exact: true }).waitFor();
    await goTo(page, 'Event types');
    await page.getByRole('table', { name: 'Event types' }).getByRole('cell', { name: 'Motion\\u200f', exact: true }).waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
  });

  it('shows links by their parsed href, percent-encoded and in punycode, and escapes in properties and text URLs', async () => {
    const { page } = view;
    await goTo(page, 'Events');
    await page.getByRole('button', { name: `Details ${eventId}` }).click();
    const details = page.getByRole('region', { name: 'Event details' });
    for (const href of ['https://evil.example/%E2%80%AEgnp.exe', 'https://xn--80ak6aa92e.com/']) {
      const link = details.getByRole('link', { name: href, exact: true });
      expect(await link.getAttribute('href')).toBe(href);
    }
    for (const text of ['paid\\u202e\\u2066 in full', 'one\\u000atwo', 'javascript:alert(1)\\u202e']) await details.getByText(text, { exact: true }).waitFor();
    expect(await details.innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/);
    expect(view.problems()).toEqual([]);
  });
});
