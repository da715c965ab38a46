/**
 * The console's Webhooks screen in a real Chromium against a stack started here (ADMIN_TOKEN set,
 * loopback allowed as a webhook network, a one-step retry schedule) and a receiver on 127.0.0.1:
 * a webhook created with its secret shown once and verifying the receiver's signature, a delivery
 * succeeded in the log with its attempt, a failing receiver's attempts with its status and body
 * (as text), Retry and "Recover failed since…", editing the filter, disabling with the reason
 * shown, rotating the secret and deleting. Nothing may open a dialog, throw, log an error or break
 * the CSP meanwhile.
 */
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/servers.js';
import { getJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { ADMIN_TOKEN, consoleEvent, goTo, openConsole, postEvent, signIn, type ConsolePage } from './console-page.js';
import { answerWith, headersOf, row, untilDelivery } from './webhook-steps.js';

const NO_BROWSER = chromiumPath() === undefined;
const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
/** What the failing receiver answers: markup that must reach the page as text only. */
const HOSTILE_BODY = '<b id="hostile-body">receiver down</b><img src=x onerror="window.hit=1">';
const dir = tempDir('console-webhooks');
let stack: Stack;
let browser: Browser;
let view: ConsolePage;
let receiver: Receiver;
let secret = '';
let webhookId = '';

beforeAll(async () => {
  if (NO_BROWSER) return;
  receiver = await startReceiver();
  // One retry step: a failing delivery is `failed` after its second attempt, a second later.
  stack = await startStack({ dataDir: dir.path, env: { ADMIN_TOKEN, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' } });
  browser = await launchChromium();
  view = await openConsole(browser, stack);
  await signIn(view.page);
});
afterAll(async () => {
  await browser?.close();
  await stopAllStacks();
  await receiver?.close();
  dir.remove();
});

const answer = (status: number, body = '') => answerWith(receiver, status, body);

describe.skipIf(NO_BROWSER)('settings console: a new webhook', () => {
  it('shows a refused url next to its field, then creates a webhook and shows its secret once', async () => {
    const { page } = view;
    await goTo(page, 'Webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    expect(await page.getByLabel('event.created').isChecked()).toBe(true);
    expect(await page.getByLabel('device.created').isChecked()).toBe(false);
    expect(await page.getByLabel('Enabled').isChecked()).toBe(true);
    const url = page.getByLabel('URL');
    await url.fill('ftp://hooks.example.com/in');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
    const described = ((await url.getAttribute('aria-describedby')) ?? '').split(' ');
    const messages = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(messages.some((text) => text?.startsWith('url must use http or https'))).toBe(true);

    await url.fill(receiver.url);
    await page.getByLabel('Description').fill('Ticketing');
    await page.getByLabel('Domains').fill('acme.camera.*');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const shown = page.getByRole('region', { name: 'New webhook secret' });
    secret = (await shown.locator('code').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shown.getByRole('button', { name: 'Copy secret' }).click();
    await expect.poll(() => shown.getByRole('status').textContent()).toMatch(/^(Copied to the clipboard|Selected: press Ctrl\+C)/);

    const webhooks = (await getJson(`${stack.api}/settings/dynamic-events/webhooks`, ADMIN)).body?.webhooks as Array<Record<string, unknown>>;
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0]).toMatchObject({ url: receiver.url, description: 'Ticketing', filter: { domains: ['acme.camera.*'], kinds: ['event.created'] }, enabled: true });
    webhookId = String(webhooks[0]?.id);
    const listedRow = row(page, 'Webhooks', 'Ticketing');
    await expect.poll(() => listedRow.textContent()).toContain('event.created; domains acme.camera.*');
    expect(await listedRow.textContent()).toContain('enabled');
    expect(await listedRow.textContent()).toContain('UTC');

    await goTo(page, 'Events');
    await goTo(page, 'Webhooks');
    await row(page, 'Webhooks', 'Ticketing').waitFor();
    expect(await page.getByRole('region', { name: 'New webhook secret' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

});

describe.skipIf(NO_BROWSER)('settings console: a webhook\'s delivery log', () => {
  it('delivers an event posted over HTTP, signed with the secret shown, and logs it succeeded with its attempt', async () => {
    const { page } = view;
    const posted = await postEvent(stack, consoleEvent({ domain: 'acme.camera.video' }));
    expect(posted.status).toBe(200);
    const [received] = await receiver.waitFor(1);
    const payload = new Webhook(secret).verify(received!.body, headersOf(received!)) as { type: string; data: { id: string } };
    expect(payload).toMatchObject({ type: 'event.created', data: { id: posted.body?.id } });
    const deliveryId = String(received!.headers['webhook-id']);

    await page.getByRole('button', { name: 'Deliveries of Ticketing' }).click();
    await untilDelivery(page, deliveryId, 'succeeded');
    const logged = row(page, 'Deliveries', deliveryId);
    expect(await logged.textContent()).toContain(String(posted.body?.id));
    await logged.getByRole('button', { name: `Details ${deliveryId}` }).click();
    const details = page.getByRole('region', { name: 'Delivery details' });
    const attempts = details.getByRole('table', { name: 'Attempts' }).locator('tbody tr');
    await expect.poll(() => attempts.first().textContent()).toContain('204');
    expect(await attempts.count()).toBe(1);
    expect(await attempts.first().textContent()).toContain('UTC');
  });

  it("shows a failing receiver's attempts with their status and body as text, and Retry sends it again", async () => {
    const { page } = view;
    answer(500, HOSTILE_BODY);
    expect((await postEvent(stack, consoleEvent({ domain: 'acme.camera.video', properties: { zone: 'dock' } }))).status).toBe(200);
    const received = await receiver.waitFor(3);
    const deliveryId = String(received[1]!.headers['webhook-id']);
    expect(received[2]!.headers['webhook-id']).toBe(deliveryId);

    await untilDelivery(page, deliveryId, 'failed');
    expect(await row(page, 'Deliveries', deliveryId).textContent()).toContain('500');
    await page.getByRole('button', { name: `Details ${deliveryId}` }).click();
    const attempts = page.getByRole('region', { name: 'Delivery details' }).getByRole('table', { name: 'Attempts' }).locator('tbody tr');
    await expect.poll(() => attempts.count()).toBe(2);
    expect(await attempts.first().textContent()).toContain('500');
    expect(await attempts.first().textContent()).toContain(HOSTILE_BODY);
    expect(await page.locator('#hostile-body').count()).toBe(0);
    expect(await page.evaluate('window.hit')).toBeUndefined();

    const status = page.getByLabel('Status', { exact: true });
    await status.selectOption('succeeded');
    await expect.poll(() => row(page, 'Deliveries', deliveryId).count()).toBe(0);
    await status.selectOption('failed');
    await expect.poll(() => row(page, 'Deliveries', deliveryId).count()).toBe(1);

    answer(204);
    await page.getByRole('button', { name: `Retry ${deliveryId}` }).click();
    await receiver.waitFor(4);
    await status.selectOption('');
    await untilDelivery(page, deliveryId, 'succeeded');
    await page.getByRole('button', { name: `Details ${deliveryId}` }).click();
    await expect.poll(() => attempts.count()).toBe(3);
  });

});

describe.skipIf(NO_BROWSER)('settings console: recovering and paging the delivery log', () => {
  it('recovers every failed delivery since a UTC time', async () => {
    const { page } = view;
    answer(500);
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    expect((await postEvent(stack, consoleEvent({ domain: 'acme.camera.video' }))).status).toBe(200);
    const received = await receiver.waitFor(6);
    const deliveryId = String(received[5]!.headers['webhook-id']);
    await untilDelivery(page, deliveryId, 'failed');

    answer(204);
    await page.getByLabel('Recover failed since').fill(since);
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'sent again' }).textContent()).toBe('1 failed delivery sent again.');
    await receiver.waitFor(7);
    await untilDelivery(page, deliveryId, 'succeeded');
  });


  it('pages through the delivery log, 50 a page, newest first', async () => {
    const { page } = view;
    // Three deliveries so far: 48 more make 51, one more than a page.
    for (let n = 0; n < 48; n++) expect((await postEvent(stack, consoleEvent({ domain: 'acme.camera.video', properties: { seq: String(n) } }))).status).toBe(200);
    const received = await receiver.waitFor(55, 30_000);
    const log = page.getByRole('region', { name: /^Deliveries of / });
    const rows = log.getByRole('table', { name: 'Deliveries' }).locator('tbody tr');
    await expect
      .poll(async () => {
        await log.getByRole('button', { name: 'Refresh' }).click();
        return rows.filter({ hasText: 'succeeded' }).count();
      })
      .toBe(50);
    expect(await rows.first().textContent()).toContain(String(received[54]!.headers['webhook-id']));
    await log.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => log.getByText('Page 2', { exact: true }).count()).toBe(1);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(String(received[0]!.headers['webhook-id']));
    expect(await log.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await log.getByRole('button', { name: 'Refresh' }).click(); // the same page, read again
    await expect.poll(() => log.getByText('Page 2', { exact: true }).count()).toBe(1);
    await log.getByRole('button', { name: 'First page' }).click();
    await expect.poll(() => rows.count()).toBe(50);
    expect(await log.getByText('Page 1', { exact: true }).count()).toBe(1);
  });
});

describe.skipIf(NO_BROWSER)('settings console: changing a webhook, and what never happens', () => {
  it('edits the filter, and shows a refused pattern next to its field', async () => {
    const { page } = view;
    await page.getByRole('button', { name: 'Edit Ticketing' }).click();
    const domains = page.getByLabel('Domains');
    await domains.fill('acme..bad');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => domains.getAttribute('aria-invalid')).toBe('true');
    await domains.fill('yard.camera.*');
    await page.getByLabel('Device names').fill('camera-yard-01');
    await page.getByLabel('device.created').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row(page, 'Webhooks', 'Ticketing').textContent()).toContain('event.created, device.created; domains yard.camera.*; devices camera-yard-01');
    const read = await getJson(`${stack.api}/settings/dynamic-events/webhooks/${webhookId}`, ADMIN);
    expect(read.body?.filter).toEqual({ domains: ['yard.camera.*'], device_names: ['camera-yard-01'], kinds: ['event.created', 'device.created'] });
  });

  it('disables the webhook with the reason shown, and enables it again', async () => {
    const { page } = view;
    await page.getByRole('button', { name: 'Disable Ticketing' }).click();
    await expect.poll(() => row(page, 'Webhooks', 'Ticketing').textContent()).toContain('disabled: disabled by an admin');
    const read = await getJson(`${stack.api}/settings/dynamic-events/webhooks/${webhookId}`, ADMIN);
    expect(read.body).toMatchObject({ enabled: false, disabled_reason: 'disabled by an admin' });
    await page.getByRole('button', { name: 'Enable Ticketing' }).click();
    await expect.poll(() => row(page, 'Webhooks', 'Ticketing').getByRole('cell').nth(2).textContent()).toBe('enabled');
  });

  it('rotates the secret after a confirmation and shows the new one once', async () => {
    const { page } = view;
    await page.getByRole('button', { name: 'Rotate secret of Ticketing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Rotate secret of Ticketing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('region', { name: 'New webhook secret' }), rotated = (await shown.locator('code').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated).not.toBe(secret);
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(rotated);
  });

  it('deletes the webhook after a confirmation', async () => {
    const { page } = view;
    await page.getByRole('button', { name: 'Delete Ticketing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Webhooks' }).textContent()).toContain('No webhooks yet.');
    expect((await getJson(`${stack.api}/settings/dynamic-events/webhooks/${webhookId}`, ADMIN)).status).toBe(404);
  });

  it('ran no dialog, script error, console error or CSP violation', () => {
    expect(view.problems()).toEqual([]);
  });
});
