/**
 * The Overview, first in the console, against a real stack: its chart drawn from the counts API
 * (one bar per bucket, stacked by event type or domain), a click on a bar opening exactly that
 * bucket's events, counts by event type and by device, devices by last sighting, the latest stored
 * images loaded as thumbnails that open their event, following live, and hostile names shown as
 * text. Counts and last_seen_at may trail the events by up to a minute (a rollup), so the waits
 * allow that much.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { gradientPng } from '../support/images.js';
import { tempDir } from '../support/servers.js';
import { startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, consoleEvent, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';

const NO_BROWSER = chromiumPath() === undefined;
/** Counts and last_seen_at are at most 60 s behind the events: slack on top for a loaded box. */
const ROLLUP_MS = 75_000;
const HOSTILE_DEVICE = '<img src=x onerror=alert(1)>';
const HOSTILE_TYPE_NAME = '<b onmouseover=alert(3)>hover</b>';
const EVENTS = [
  { device: 'camera-entrance-01', domain: 'acme.camera.video', image: true },
  { device: 'camera-entrance-01', domain: 'acme.camera.video', image: true },
  { device: 'camera-garage-02', domain: 'acme.camera.video', image: true },
  { device: 'door-sensor-07', domain: 'vendorx.access', image: false },
  { device: HOSTILE_DEVICE, domain: 'vendorx.access', image: false },
];

const dir = tempDir('console-overview');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;
const ids: string[] = [];

beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  for (const [n, event] of EVENTS.entries()) {
    const properties: Record<string, string> = event.image ? { n: String(n), base64_image: gradientPng(96, 64) } : { n: String(n) };
    const body = consoleEvent({ device: event.device, domain: event.domain, objectId: `channel-${n}`, properties });
    if (event.device === HOSTILE_DEVICE) (body.event.event_type as { display_name: string }).display_name = HOSTILE_TYPE_NAME;
    const answer = await postEvent(stack, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    ids.push(String(answer.body?.id));
  }
  browser = await launchChromium();
  view = await openConsole(browser, stack);
  await signIn(view.page);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

const chart = () => view.page.getByRole('group', { name: /^Events per / });
/** The bars holding events (a bar is a link named "<bucket>: N events (…)"). */
const fullBars = () => chart().getByRole('link', { name: /: [1-9]\d* events? / });

describe.skipIf(NO_BROWSER)('settings console: Overview chart', () => {
  it('is the first screen, and draws one bar per hour of the last 24 h with the events posted', async () => {
    const { page } = view;
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.getByRole('navigation').getByRole('link').first().textContent()).toBe('Overview');
    await expect.poll(() => chart().getByRole('link').count()).toBe(24);
    await expect.poll(() => fullBars().allTextContents().then(() => fullBars().evaluateAll((bars) => bars.map((b) => b.getAttribute('aria-label')))), { timeout: ROLLUP_MS }).toEqual([
      expect.stringMatching(/: 5 events \(motion_detected 5\)$/),
    ]);
    expect(await chart().locator('rect[class^="series-"]').count()).toBeGreaterThan(0);
  }, ROLLUP_MS + 30_000);

  it('stacks by domain and by minute over 15 min', async () => {
    const { page } = view;
    await page.getByRole('button', { name: '15 min' }).click();
    await page.getByLabel('Stacked by').selectOption('domain');
    await expect.poll(() => chart().getByRole('link').count()).toBe(15);
    await expect.poll(() => fullBars().evaluateAll((bars) => bars.map((b) => b.getAttribute('aria-label'))), { timeout: ROLLUP_MS }).toEqual([
      expect.stringMatching(/UTC: 5 events \(acme\.camera\.video 3, vendorx\.access 2\)$/),
    ]);
    const legend = page.getByRole('list', { name: 'Series' });
    expect(await legend.getByRole('listitem').allTextContents()).toEqual(['acme.camera.video', 'vendorx.access']);
  }, ROLLUP_MS + 30_000);

});

describe.skipIf(NO_BROWSER)('settings console: Overview lists and images', () => {
  it('counts by event type and by device, and lists devices by last sighting, hostile names as text', async () => {
    const { page } = view;
    const byDevice = page.getByRole('region', { name: 'By device' });
    await expect.poll(() => byDevice.getByRole('listitem').allTextContents(), { timeout: ROLLUP_MS }).toEqual(
      expect.arrayContaining(['camera-entrance-012', 'camera-garage-021', `${HOSTILE_DEVICE}1`]),
    );
    expect(await page.getByRole('region', { name: 'By event type' }).getByRole('listitem').allTextContents()).toEqual(['motion_detected5']);
    const recent = page.getByRole('region', { name: 'Seen most recently' });
    await expect.poll(() => recent.getByRole('link').allTextContents(), { timeout: ROLLUP_MS }).toHaveLength(4);
    expect(await recent.getByRole('link', { name: HOSTILE_DEVICE, exact: true }).getAttribute('href')).toBe(`#/events?${new URLSearchParams({ device_name: HOSTILE_DEVICE })}`);
    expect(await page.getByRole('region', { name: 'Silent longest' }).getByRole('link').first().textContent()).toBe('camera-entrance-01');
    expect(await page.locator('main [onerror], main [onmouseover], main b, main script, main img[src="x"]').count()).toBe(0);
  }, ROLLUP_MS * 2 + 30_000);

  it('shows the latest stored images as loaded thumbnails; one opens its event', async () => {
    const { page } = view;
    const images = page.getByRole('region', { name: 'Latest images' }).getByRole('img');
    await expect.poll(() => images.count()).toBe(3);
    for (const image of await images.all()) await expect.poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(96);
    await images.first().click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const details = page.getByRole('region', { name: 'Event details' });
    await expect.poll(() => details.textContent()).toContain(ids[2]);
    await goTo(page, 'Overview');
  });

});

describe.skipIf(NO_BROWSER)('settings console: Overview bars and live', () => {
  it('opens the events of a bar when it is clicked, exactly those of its bucket', async () => {
    const { page } = view;
    await page.getByRole('button', { name: '1 h' }).click();
    await expect.poll(() => chart().getByRole('link').count()).toBe(60);
    await expect.poll(() => fullBars().count(), { timeout: ROLLUP_MS }).toBeGreaterThan(0);
    const label = (await fullBars().first().getAttribute('aria-label')) ?? '';
    const count = Number(/: (\d+) events?/.exec(label)?.[1]);
    const minute = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC/.exec(label)?.[1] ?? '';
    await fullBars().first().click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    expect(await page.getByLabel('Since (UTC)').inputValue()).toBe(minute);
    const rows = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(count);
    expect(await page.getByRole('status').textContent()).toMatch(/Until/);
  }, ROLLUP_MS + 30_000);

  it('follows live: an event posted now is counted without a reload', async () => {
    const { page } = view;
    await goTo(page, 'Overview');
    await page.getByRole('button', { name: '15 min' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/^Live/);
    const total = async () => (await fullBars().evaluateAll((bars) => bars.map((b) => Number(/: (\d+) event/.exec(b.getAttribute('aria-label') ?? '')?.[1])))).reduce((a, b) => a + b, 0);
    await expect.poll(total, { timeout: ROLLUP_MS }).toBe(EVENTS.length);
    expect((await postEvent(stack, consoleEvent({ device: 'camera-late-03', objectId: 'late' }))).status).toBe(200);
    const posted = Date.now();
    // The counts' pass runs every 5 s here; the Overview reads again as they catch up, well before its 60 s slide.
    await expect.poll(total, { timeout: 30_000 }).toBe(EVENTS.length + 1);
    console.info(`console overview: a live event counted ${Date.now() - posted} ms after its 200`);
    expect(view.problems()).toEqual([]);
  }, ROLLUP_MS * 2 + 30_000);
});
