/**
 * The Tokens screen in a real Chromium: at 1280×800, on a 390-wide phone and either side of the
 * width where rows become cards, every row's "Revoke"
 * lies whole inside the viewport and inside every ancestor that clips (the table's region scrolls
 * sideways when its table is too wide), with a hostile row among them (a 100-character name without
 * a space, a policy of long domain patterns), its text shown whole and axe clean. Revoking the last
 * live token leaves the instance closed: the screen says so, from the API's `access`, and says
 * nothing of the kind while a token remains.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { getJson, postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, goTo, openConsole, signIn, type ConsolePage } from './console-page.js';
import { axeViolations } from './showcase.js';

const NO_BROWSER = chromiumPath() === undefined;
const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
/** A name of the most characters a token's name may have (100), none of them a space to wrap at. */
const LONG_NAME = `vendor-${'x'.repeat(93)}`;
/** Domain patterns as long as labels go (63 characters), many of them. */
const LONG_DOMAINS = Array.from({ length: 12 }, (_, n) => `${String.fromCharCode(97 + n).repeat(63)}.${'camera'.repeat(10)}.*`);
const HOSTILE_POLICY = { may_create: ['objects', 'event_types'], domains: LONG_DOMAINS, max_devices: 123456, max_objects: 654321, rate: { per_second: 1000, burst: 100000 } };
/** The two, and either side of the width where rows become cards (styles.css). */
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
  { width: 1101, height: 800 },
  { width: 1100, height: 800 },
];
/** The status line's first words for each `access` the API answers. */
const CLOSED = /^Closed: /;
const TOKEN_REQUIRED = /^Tokens required: /;

/**
 * What keeps an element from being seen whole, in words (empty: nothing): the part of it outside
 * the viewport, or outside the padding box of an ancestor whose overflow clips. The page is scrolled
 * up or down to it first, never sideways (a scrolled region would hide what a user sees at first).
 */
const CLIPPED_SOURCE = `(element) => {
  const y = element.getBoundingClientRect().top + scrollY;
  scrollTo(0, Math.max(0, y - innerHeight / 2));
  const box = element.getBoundingClientRect();
  const problems = [];
  const within = (r, what) => {
    if (box.left < r.left - 0.5 || box.right > r.right + 0.5 || box.top < r.top - 0.5 || box.bottom > r.bottom + 0.5)
      problems.push(what + ' shows ' + [r.left, r.right].map(Math.round).join('…') + ' of ' + [box.left, box.right].map(Math.round).join('…'));
  };
  const root = document.documentElement;
  within({ left: 0, top: 0, right: root.clientWidth, bottom: root.clientHeight }, 'the viewport');
  for (let e = element.parentElement; e && e !== root && e !== document.body; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const r = e.getBoundingClientRect();
    const left = r.left + e.clientLeft, top = r.top + e.clientTop;
    within({ left, top, right: left + e.clientWidth, bottom: top + e.clientHeight }, e.tagName.toLowerCase() + '.' + e.className);
  }
  if (root.scrollWidth > root.clientWidth) problems.push('the page scrolls sideways (' + root.scrollWidth + ' > ' + root.clientWidth + ')');
  return problems;
}`;
// Built from its source, so the page runs it as written (the test's tsconfig has no DOM types).
const CLIPPED = new Function('element', `return (${CLIPPED_SOURCE})(element)`) as (element: unknown) => string[];

const dir = tempDir('console-tokens');
let stack: Stack;
let browser: Browser;
const opened: ConsolePage[] = [];

beforeAll(async () => {
  if (NO_BROWSER) return;
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN } });
  for (const token of [{ name: 'vendor-cam', policy: { domains: ['acme.camera.*'] } }, { name: LONG_NAME, policy: HOSTILE_POLICY, expires_at: '2099-01-01T00:00:00Z' }]) {
    const created = await postJson(`${stack.api}/settings/dynamic-events/tokens`, token, ADMIN);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  dir.remove();
});

/** Opens the Tokens screen at `viewport`, signed in, once its rows are listed. */
async function tokensScreen(viewport: { width: number; height: number }): Promise<Page> {
  const view = await openConsole(browser, stack, viewport);
  opened.push(view);
  await signIn(view.page);
  await goTo(view.page, 'Tokens');
  await view.page.getByRole('button', { name: 'Revoke vendor-cam' }).waitFor();
  return view.page;
}

/** Revokes `name` as a user does: its "Revoke", then "Revoke" in the dialog; waits for the row to say so. */
async function revoke(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: `Revoke ${name}`, exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  await expect.poll(() => page.getByRole('button', { name: `Revoke ${name}`, exact: true }).count()).toBe(0);
}

/** What the screen says of the instance's access, '' while it says nothing (answered at once, never waiting). */
const accessLine = async (page: Page): Promise<string> =>
  (await page.getByRole('status').filter({ hasText: /^(Open|Tokens required|Closed): / }).allTextContents()).join(' | ');

describe.skipIf(NO_BROWSER)('settings console: the Tokens screen fits', () => {
  for (const viewport of VIEWPORTS) {
    it(`shows every row's Revoke whole at ${viewport.width}×${viewport.height}, a hostile row among them`, async () => {
      const page = await tokensScreen(viewport);
      const buttons = page.getByRole('table', { name: 'Tokens' }).getByRole('button', { name: /^Revoke / });
      expect(await buttons.count()).toBe(2);
      for (const button of await buttons.all()) expect(await button.evaluate(CLIPPED), (await button.getAttribute('aria-label')) ?? '').toEqual([]);
      // Nothing of the hostile row is cut away: its name and every pattern are there to read.
      const row = page.getByRole('table', { name: 'Tokens' }).getByRole('row').filter({ hasText: LONG_NAME });
      const text = (await row.textContent()) ?? '';
      for (const pattern of LONG_DOMAINS) expect(text).toContain(pattern);
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

describe.skipIf(NO_BROWSER)('settings console: the instance after the last token', () => {
  it('says the instance needs a token while one is live, and that it is closed once the last is revoked', async () => {
    const page = await tokensScreen(VIEWPORTS[0]!);
    await expect.poll(() => accessLine(page)).toMatch(TOKEN_REQUIRED);

    await page.getByRole('button', { name: 'New token' }).click();
    await page.getByLabel('Name', { exact: true }).fill('probe');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('region', { name: 'New token secret' }).waitFor();
    for (const name of ['vendor-cam', LONG_NAME]) {
      await revoke(page, name);
      // "probe" is live: no word of a closed instance.
      await expect.poll(() => accessLine(page)).toMatch(TOKEN_REQUIRED);
      expect(await page.getByText(CLOSED).count()).toBe(0);
    }

    await revoke(page, 'probe');
    const settings = await getJson(`${stack.api}/settings/dynamic-events`, ADMIN);
    expect(settings.body).toEqual({ require_token: true, access: 'closed' });
    await expect.poll(() => accessLine(page)).toMatch(CLOSED);
    const said = await accessLine(page);
    expect(said).toContain('refused with 401');
    // A sender's request is what the banner says: refused.
    const sent = await postJson(`${stack.api}/dynamic-events`, {});
    expect(sent.status).toBe(401);
  });

  it('says the instance is open once "Require a token" is turned off', async () => {
    const page = opened.at(-1)!.page;
    await page.getByLabel('Require a token').uncheck();
    await expect.poll(() => accessLine(page)).toMatch(/^Open: /);
    expect(await page.getByText(/^Closed: /).count()).toBe(0);
  });

  it('ran no dialog, script error, console error or CSP violation', () => {
    for (const view of opened) expect(view.problems()).toEqual([]);
  });
});
