/**
 * The entity screens as an operator reads them, against a real stack: the search box asks the lists
 * with q= (a part of the name, any case), devices and objects show when they were last seen, devices
 * and event types their events of the last 30 days, and each links to its events and to the
 * records beside it (a device to its objects, an object to its device).
 */
import { pollUntil } from '@dynamic-events/proto/runtime';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { getJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, consoleEvent, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';

const NO_BROWSER = chromiumPath() === undefined;
/** last_seen_at and the counts trail the events by the registry's pass (5 s here): slack for a loaded box. */
const ROLLUP_MS = 45_000;
const SENT = [
  { device: 'Lobby-Cam-01', objectId: 'channel-1' },
  { device: 'Lobby-Cam-01', objectId: 'channel-1' },
  { device: 'garage-cam-02', objectId: 'channel-2' },
];

const dir = tempDir('console-entities');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;

beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  for (const sent of SENT) expect((await postEvent(stack, consoleEvent(sent))).status).toBe(200);
  // A screen shows what the API answers when it loads: open it once the pass has counted the events.
  const seen = async (device: string) => ((await getJson(`${stack.api}/devices/${device}`)).body as { last_seen_at: string | null }).last_seen_at !== null;
  await pollUntil('the counts pass saw every device', async () => (await seen('Lobby-Cam-01')) && seen('garage-cam-02'), { timeoutMs: ROLLUP_MS });
  browser = await launchChromium();
  view = await openConsole(browser, stack);
  await signIn(view.page);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

const rowsOf = (name: string) => view.page.getByRole('table', { name }).locator('tbody tr');

describe.skipIf(NO_BROWSER)('settings console: devices, objects and event types linked', () => {
  it('searches devices by a part of the name in any case, with last seen and 30-day counts', async () => {
    const { page } = view;
    await goTo(page, 'Devices');
    await expect.poll(() => rowsOf('Devices').count()).toBe(2);
    await page.getByLabel('Search').fill('lobby');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => rowsOf('Devices').count()).toBe(1);
    const row = rowsOf('Devices').first();
    expect(await row.getByRole('cell').first().textContent()).toBe('Lobby-Cam-01');
    await expect.poll(() => row.getByRole('cell').nth(2).textContent(), { timeout: ROLLUP_MS }).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await expect.poll(() => row.getByRole('link', { name: /events of Lobby-Cam-01 in 30 d$/ }).textContent(), { timeout: ROLLUP_MS }).toBe('2');
  }, ROLLUP_MS * 2 + 20_000);

  it("opens a device's events from its count, and its objects from its row", async () => {
    const { page } = view;
    await rowsOf('Devices').first().getByRole('link', { name: /events of Lobby-Cam-01/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    expect(await page.getByLabel('Device', { exact: true }).inputValue()).toBe('Lobby-Cam-01');
    await expect.poll(() => rowsOf('Events').count()).toBe(2);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    await rowsOf('Devices').first().getByRole('link', { name: 'Objects of Lobby-Cam-01' }).click();
    await page.getByRole('heading', { level: 1, name: 'Objects' }).waitFor();
    await expect.poll(() => rowsOf('Objects').allTextContents()).toEqual([expect.stringContaining('acme.camera.video.channel-1')]);
  });

  it("links an object to its device and its events, and shows when it was last seen", async () => {
    const { page } = view;
    const row = rowsOf('Objects').first();
    await expect.poll(() => row.getByRole('cell').nth(4).textContent(), { timeout: ROLLUP_MS }).toMatch(/ UTC$/);
    await row.getByRole('link', { name: 'Lobby-Cam-01', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('Lobby-Cam-01');
    await expect.poll(() => rowsOf('Devices').count()).toBe(1);
    await goTo(page, 'Objects');
    await page.getByLabel('Search').fill('CHANNEL-2');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => rowsOf('Objects').count()).toBe(1);
    await rowsOf('Objects').first().getByRole('link', { name: 'acme.camera.video.channel-2', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await expect.poll(() => rowsOf('Events').count()).toBe(1);
  }, ROLLUP_MS + 20_000);

  it('counts an event type\'s events and links to them', async () => {
    const { page } = view;
    await goTo(page, 'Event types');
    const row = rowsOf('Event types').first();
    await expect.poll(() => row.getByRole('link', { name: /events of motion_detected in 30 d$/ }).textContent(), { timeout: ROLLUP_MS }).toBe('3');
    await row.getByRole('link', { name: 'motion_detected', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await expect.poll(() => rowsOf('Events').count()).toBe(3);
    expect(view.problems()).toEqual([]);
  }, ROLLUP_MS + 20_000);
});
