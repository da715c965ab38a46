/**
 * Data for the console's accessibility test and screenshots: two webhooks (their receivers on
 * loopback), a few cameras of two vendors, one token with a policy, and events with stored images,
 * posted over HTTP as integrations do.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { postJson, type Stack } from '../support/stack.js';
import { ADMIN_TOKEN, consoleEvent, postEvent } from './console-page.js';
import { gradientPng } from '../support/images.js';

/** Posts the showcase's events (the instance open), then creates the token (which closes it). */
export async function postShowcase(stack: Stack): Promise<void> {
  const cameras = [
    { device: 'camera-entrance-01', domain: 'acme.camera.video', objectId: 'channel-1', objectName: 'Entrance camera, channel 1' },
    { device: 'camera-garage-02', domain: 'acme.camera.video', objectId: 'channel-2', objectName: 'Garage camera, channel 2' },
    { device: 'door-sensor-07', domain: 'vendorx.access', objectId: 'door-7', objectName: 'Back door' },
  ];
  for (const [n, camera] of cameras.entries()) {
    const properties = { zone: ['lobby', 'garage', 'back door'][n] ?? 'lobby', confidence: '0.9', base64_image: gradientPng(96, 64) };
    const answer = await postEvent(stack, consoleEvent({ ...camera, properties, clips: [`https://cdn.example.com/clips/${n}.mp4`] }));
    expect(answer.status).toBe(200);
  }
  const created = await postJson(
    `${stack.api}/settings/dynamic-events/tokens`,
    { name: 'vendor-x', policy: { may_create: ['objects', 'event_types'], domains: ['vendorx.*'], max_objects: 500, rate: { per_second: 10, burst: 20 } } },
    { Authorization: `Bearer ${ADMIN_TOKEN}` },
  );
  expect(created.status).toBe(201);
  const sent = await postEvent(stack, consoleEvent({ ...cameras[2], properties: { state: 'opened' } }), String(created.body?.token));
  expect(sent.status).toBe(200);
}

/**
 * Creates the showcase's webhooks before its events: one to `url` for every camera event, one to
 * `goneUrl` (a receiver answering 410, which disables it with that reason) for vendorx events.
 */
export async function createShowcaseWebhooks(stack: Stack, url: string, goneUrl: string): Promise<void> {
  const webhooks = [
    { url, description: 'Ticketing', filter: { domains: ['acme.camera.*'], kinds: ['event.created', 'device.created'] } },
    { url: goneUrl, description: 'Door alarms', filter: { domains: ['vendorx.*'], event_types: ['motion_detected'] } },
  ];
  for (const webhook of webhooks) {
    const created = await postJson(`${stack.api}/settings/dynamic-events/webhooks`, webhook, { Authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(created.status).toBe(201);
  }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical violations axe-core finds on the page, as "rule: target" lines. axe is
 * evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  const found = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`,
  )) as Array<{ id: string; impact: string | null; targets: string[] }>;
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** What the focused element is and whether its focus is drawn (an outline of some width). */
export async function focused(page: Page): Promise<{ tag: string; name: string; outline: string }> {
  return (await page.evaluate(`(() => {
    const e = document.activeElement;
    const s = getComputedStyle(e);
    const name = e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].textContent) || e.textContent || '';
    return { tag: e.tagName.toLowerCase(), name: name.trim(), outline: s.outlineStyle === 'none' ? 'none' : s.outlineWidth };
  })()`)) as { tag: string; name: string; outline: string };
}
