/**
 * The console for every user: axe-core finds no serious or critical violation on any screen (and
 * on the forms, a webhook's delivery log and a delivery's attempts, the Overview with its chart) at
 * 1280×800 and on a 390-wide phone; a keyboard alone signs in and reaches every screen with its
 * focus drawn. The 1280×800 pass also writes the README's screenshots
 * (ingest-gateway/console/screenshots/*.png), so they show the console as it is.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { REPO_ROOT, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { ADMIN_TOKEN, goTo, openConsole, signIn, type ConsolePage } from './console-page.js';
import { axeViolations, createShowcaseWebhooks, focused, postShowcase } from './showcase.js';

const NO_BROWSER = chromiumPath() === undefined;
const SCREENSHOTS = `${REPO_ROOT}ingest-gateway/console/screenshots`;
const SCREENS = ['Overview', 'Events', 'Devices', 'Objects', 'Event types', 'Tokens', 'Webhooks'] as const;
const fileOf = (name: string) => `${SCREENSHOTS}/${name.toLowerCase().replace(' ', '-')}.png`;

const dir = tempDir('console-a11y');
let stack: Stack;
let browser: Browser;
const receivers: Receiver[] = [];
const opened: ConsolePage[] = [];

beforeAll(async () => {
  if (NO_BROWSER) return;
  receivers.push(await startReceiver(), await startReceiver({ answer: (_r, _n, res) => res.writeHead(410).end() }));
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  await createShowcaseWebhooks(stack, receivers[0]!.url, receivers[1]!.url);
  await postShowcase(stack);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  dir.remove();
});

/** Shows what each screen is for: a first event's details, the tokens, a webhook's deliveries and attempts. */
async function fillScreen(page: Page, name: (typeof SCREENS)[number]): Promise<void> {
  if (name === 'Overview') {
    // Counts trail the events by up to a minute (a rollup): wait for the bars and the thumbnails.
    const bars = page.getByRole('group', { name: /^Events per / }).getByRole('link', { name: /: [1-9]\d* events? / });
    await expect.poll(() => bars.count(), { timeout: 75_000 }).toBeGreaterThan(0);
    const thumbnail = page.getByRole('region', { name: 'Latest images' }).getByRole('img').first();
    await expect.poll(() => thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(96);
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Live/);
  } else if (name === 'Events') {
    const camera = page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ hasText: 'acme.camera.video' }).first();
    await camera.getByRole('button', { name: /^Details / }).click();
    await page.getByRole('region', { name: 'Event details' }).getByRole('img', { name: 'Stored image 1' }).waitFor();
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Live/);
  } else if (name === 'Webhooks') {
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('row').filter({ hasText: 'disabled: ' }).waitFor();
    await page.getByRole('button', { name: 'Deliveries of Ticketing' }).click();
    const succeeded = page.getByRole('table', { name: 'Deliveries' }).locator('tbody tr').filter({ hasText: 'succeeded' });
    await expect.poll(() => page.getByRole('button', { name: 'Refresh' }).click().then(() => succeeded.count())).toBeGreaterThan(0);
    await succeeded.first().getByRole('button', { name: /^Details / }).click();
    await page.getByRole('table', { name: 'Attempts' }).getByRole('row').filter({ hasText: '204' }).first().waitFor();
  } else if (name === 'Tokens') {
    await page.getByRole('table', { name: 'Tokens' }).getByRole('cell', { name: 'vendor-x', exact: true }).waitFor();
  } else {
    await page.getByRole('table', { name }).locator('tbody tr td').first().filter({ hasNotText: 'Loading' }).waitFor();
  }
}

describe.skipIf(NO_BROWSER)('settings console accessibility', () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`has no serious or critical axe violation on any screen at ${viewport.width}×${viewport.height}`, async () => {
      const view = await openConsole(browser, stack, viewport);
      opened.push(view);
      const { page } = view;
      const found: string[] = [];
      const check = async (screen: string) => found.push(...(await axeViolations(page)).map((v) => `${screen}: ${v}`));
      await page.getByLabel('Admin token').waitFor();
      await check('Sign-in');
      if (viewport.width === 1280) await page.screenshot({ path: fileOf('sign-in') });
      await signIn(page);
      for (const name of SCREENS) {
        await goTo(page, name);
        await fillScreen(page, name);
        await check(name);
        if (viewport.width === 1280) await page.evaluate('window.scrollTo(0, 0)');
        if (viewport.width === 1280) await page.screenshot({ path: fileOf(name), fullPage: name === 'Webhooks' || name === 'Overview' });
      }
      await page.getByRole('button', { name: 'New webhook' }).click();
      await check('Webhooks, new webhook form');
      await page.getByRole('button', { name: 'Delete Ticketing' }).click();
      await check('Webhooks, delete dialog');
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await goTo(page, 'Tokens');
      await page.getByRole('button', { name: 'New token' }).click();
      await check('Tokens, new token form');
      expect(found).toEqual([]);
      expect(view.problems()).toEqual([]);
      await view.context.close();
    }, 180_000);
  }

  it('signs in and reaches every screen by keyboard alone, with the focus drawn', async () => {
    const view = await openConsole(browser, stack);
    const { page } = view;
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'input', name: 'Admin token' });
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    for (const name of SCREENS) {
      let at = await focused(page);
      for (let presses = 0; !(at.tag === 'a' && at.name === name) && presses < 40; presses++) {
        await page.keyboard.press('Tab');
        at = await focused(page);
      }
      expect(at).toMatchObject({ tag: 'a', name });
      expect(at.outline).not.toBe('none');
      expect(parseFloat(at.outline)).toBeGreaterThanOrEqual(2);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
    }
    // An event's details, by keyboard: its "Details" button, then the focus moves to the details.
    await page.getByRole('link', { name: 'Events', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'Events' }).getByRole('button', { name: /^Details / }).first().waitFor();
    let at = await focused(page);
    for (let presses = 0; !at.name.startsWith('Details ') && presses < 40; presses++) {
      await page.keyboard.press('Tab');
      at = await focused(page);
    }
    expect(at.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Event details');
    expect(view.problems()).toEqual([]);
    await view.context.close();
  });
});
