/**
 * The browser harness itself: Debian's Chromium starts through playwright-core, renders a page and
 * runs its script. Proves the CI wiring (apt's chromium, `npm run test:console`) before any console test.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchChromium } from '../support/browser.js';

describe.skipIf(chromiumPath() === undefined)('browser harness', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('launches Chromium and loads a data: URL, running its script', async () => {
    browser = await launchChromium();
    expect(browser.version()).toMatch(/^\d+\./);
    const page = await browser.newPage();
    const html = '<!doctype html><title>harness</title><p id="out">waiting</p><script>document.getElementById("out").textContent = "ran " + (6 * 7)</script>';
    await page.goto(`data:text/html,${encodeURIComponent(html)}`);
    expect(await page.title()).toBe('harness');
    expect(await page.locator('#out').textContent()).toBe('ran 42');
  });
});

describe('browser harness without a browser', () => {
  const saved = { path: process.env.CHROMIUM_PATH, ci: process.env.CI };
  afterEach(() => {
    for (const [name, value] of [['CHROMIUM_PATH', saved.path], ['CI', saved.ci]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('fails with a clear error, and under CI=true chromiumPath fails too (never a skip)', async () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    await expect(launchChromium()).rejects.toThrow(/Chromium not found at \/nonexistent\/chromium: install Debian's package/);
    process.env.CI = 'true';
    expect(() => chromiumPath()).toThrow(/Chromium not found/);
  });
});
