/**
 * Set-up of the webhook admin tests: the gateway app over HTTP on 127.0.0.1:0 with the real
 * WebhookService client dialling the fake service of fake-webhook-service.ts.
 */
import { afterEach } from 'vitest';
import { createWebhookClient, type WebhookClient } from '../src/clients/webhooks.js';
import { startWebhookService, WEBHOOK_CREDENTIAL, type FakeWebhookService } from './fake-webhook-service.js';
import { API, startGateway, type TestGateway } from './helpers.js';

export const ADMIN = 'admin-token-of-at-least-32-characters!';
export const WEBHOOKS = `${API}/settings/dynamic-events/webhooks`;

export interface WebhookAdminTest {
  gw: TestGateway;
  service: FakeWebhookService;
  /** A request with the admin token (or `auth`); `body` a JSON value or a raw string. */
  admin(method: string, path: string, body?: unknown, auth?: string): Promise<Response>;
  /** The same, answering the status, the parsed body and the headers. */
  json(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
}

/** Registers the clean-up; `start()` brings up a fresh service and gateway (null: ADMIN_TOKEN unset). */
export function useWebhookAdmin(): (adminToken?: string | null) => Promise<WebhookAdminTest> {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return async (adminToken = ADMIN) => {
    const service = await startWebhookService();
    cleanups.push(() => service.close());
    const client: WebhookClient = createWebhookClient(service.address, { deadlineMs: 5000, credential: WEBHOOK_CREDENTIAL });
    cleanups.push(() => client.close());
    const gw = await startGateway({ adminToken: adminToken ?? undefined, webhooks: client });
    cleanups.push(() => gw.close());
    const admin: WebhookAdminTest['admin'] = (method, path, body, auth = ADMIN) =>
      fetch(`${gw.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    const json: WebhookAdminTest['json'] = async (method, path, body) => {
      const response = await admin(method, path, body);
      return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
    };
    return { gw, service, admin, json };
  };
}
