/** Steps of the console's webhook tests: the receiver's answer, its headers, a table row, the delivery log refreshed. */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Received, Receiver } from '../support/webhook-receiver.js';

/** Makes `receiver` answer every request with `status` and `body` (as HTML, which the console must show as text). */
export function answerWith(receiver: Receiver, status: number, body = ''): void {
  receiver.answer = (_r, _n, res) => res.writeHead(status, { 'content-type': 'text/html' }).end(body);
}

/** A received request's headers as the standardwebhooks verifier takes them. */
export const headersOf = (r: Received): Record<string, string> => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

/** The rows of the table captioned `table` holding `text`. */
export const row = (page: Page, table: string, text: string) => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: text });

/** Presses Refresh until the delivery's row says `status` (deliveries are sent in the background). */
export async function untilDelivery(page: Page, deliveryId: string, status: string): Promise<void> {
  const log = page.getByRole('region', { name: /^Deliveries of / });
  await expect
    .poll(async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      return row(page, 'Deliveries', deliveryId).getByRole('cell').nth(3).textContent();
    })
    .toBe(status);
}
