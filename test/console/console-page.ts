/**
 * What the console's browser tests share: a stack with an admin token, the console opened in a
 * fresh browser context with everything that must never happen recorded (a dialog, a script error,
 * a console error, a CSP violation, a console response without its security headers), sign-in and
 * navigation as a user does them, and events posted over HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { postJson, type Stack } from '../support/stack.js';

/** The admin credential every console test stack is started with. */
export const ADMIN_TOKEN = randomBytes(32).toString('hex');

/** The console's index URL (with its trailing slash) on a stack. */
export const consoleUrl = (stack: Stack): string => `${stack.api}/settings/dynamic-events/`;

/** The headers every response under the console path carries (the contract's list). */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Everything that went wrong so far (empty: nothing). */
  problems: () => string[];
  /** Every response under the console path (index, assets, 404s), with the headers checked. */
  consoleResponses: () => Array<{ url: string; status: number; csp: string | undefined; nosniff: string | undefined; referrer: string | undefined }>;
}

/** The console path's own files: its index and assets, not the admin API beside them. */
function isConsoleFile(url: string, stack: Stack): boolean {
  const index = consoleUrl(stack);
  return url.split('?')[0] === index || url.startsWith(`${index}assets/`);
}

/** Opens the console in a new context of `browser` at `viewport`, watching for what must not happen. */
export async function openConsole(browser: Browser, stack: Stack, viewport = { width: 1280, height: 800 }): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  const responses: ReturnType<ConsolePage['consoleResponses']> = [];
  page.on('dialog', (dialog) => {
    problems.push(`dialog ${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A refusal of the API (a wrong credential, a revoked token) is logged by Chromium as a failed
    // resource and shown by the console itself: not a fault of the page.
    if (message.text().startsWith('Failed to load resource') && message.location().url.startsWith(`${stack.api}/`) && !isConsoleFile(message.location().url, stack)) return;
    problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('response', (res) => {
    if (!isConsoleFile(res.url(), stack)) return;
    const headers = res.headers();
    responses.push({ url: res.url(), status: res.status(), csp: headers['content-security-policy'], nosniff: headers['x-content-type-options'], referrer: headers['referrer-policy'] });
  });
  await page.exposeFunction('reportCspViolation', (text: string) => problems.push(`CSP violation: ${text}`));
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => window.reportCspViolation(e.violatedDirective + ' blocked ' + e.blockedURI))",
  );
  await page.goto(consoleUrl(stack));
  return { context, page, problems: () => [...problems], consoleResponses: () => [...responses] };
}

/** Signs in as a user does: the credential in "Admin token", Enter; waits for "Sign out". */
export async function signIn(page: Page, credential = ADMIN_TOKEN): Promise<void> {
  await page.getByLabel('Admin token').fill(credential);
  await page.getByLabel('Admin token').press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Opens a screen from the navigation and waits for its heading. */
export async function goTo(page: Page, name: 'Overview' | 'Events' | 'Devices' | 'Objects' | 'Event types' | 'Tokens' | 'Webhooks'): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

/** An event for the console tests: `camera` on `domain`, with extra properties and URLs. */
export function consoleEvent(options: { device?: string; domain?: string; objectId?: string; objectName?: string; properties?: Record<string, string>; images?: string[]; clips?: string[] }) {
  return {
    source: {
      device_name: options.device ?? 'camera-lobby-01',
      object_id: options.objectId ?? 'channel-1',
      object_domain: options.domain ?? 'acme.camera.video',
      object_name: options.objectName ?? 'Lobby camera, channel 1',
      object_type: 'video_channel',
    },
    event: {
      event_type: { event_type: 'motion_detected', display_name: 'Motion detected', display_description: 'Motion was detected in the field of view' },
      event_data: { event_additional_properties: options.properties ?? { zone: 'lobby' }, images: options.images ?? [], video_clips: options.clips ?? [] },
    },
  };
}

/** POSTs an event (with `token` as Bearer when given); resolves with status and body. */
export function postEvent(stack: Stack, body: unknown, token?: string) {
  return postJson(`${stack.api}/dynamic-events`, body, token ? { Authorization: `Bearer ${token}` } : {});
}
