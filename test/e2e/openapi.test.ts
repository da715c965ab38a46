import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH } from '@dynamic-events/proto';
import { routeTable } from '../../ingest-gateway/src/http/app.js';
import { createMetrics } from '../../ingest-gateway/src/metrics.js';
import { DYNAMIC_EVENT_SCHEMA } from '../../ingest-gateway/src/ingest/event-schema.js';
import { fakeMedia, fakeRegistry } from '../../ingest-gateway/test/helpers.js';
import { fakeTokens } from '../../ingest-gateway/test/fake-tokens.js';
import { createWebhookClient } from '../../ingest-gateway/src/clients/webhooks.js';
import { presentDelivery, presentDeliveryWithAttempts, presentWebhook } from '../../ingest-gateway/src/api/webhook.js';
import { exampleEvent } from '../support/example.js';
import { assertMatchesSchema, openapi, OPENAPI_PATH } from '../support/openapi.js';

type Schema = Record<string, unknown>;

/**
 * Every rule a schema states, by body path: type, length/count limits, required fields, closed
 * objects and "not empty" (the gateway's notBlank, OpenAPI's minLength 1). $refs are resolved
 * against `root`; descriptions and examples are not rules.
 */
function rulesOf(schema: Schema, root: Schema, path = 'body', out: Record<string, Schema> = {}): Record<string, Schema> {
  const ref = schema.$ref as string | undefined;
  if (ref) return rulesOf(ref.slice(2).split('/').reduce<Schema>((node, key) => node[key] as Schema, root), root, path, out);
  const rules: Schema = {};
  for (const key of ['type', 'maxLength', 'maxItems', 'maxProperties']) if (schema[key] !== undefined) rules[key] = schema[key];
  if (schema.required) rules.required = [...(schema.required as string[])].sort();
  if (schema.additionalProperties === false) rules.closed = true;
  if (schema.notBlank === true || schema.minLength === 1) rules.notEmpty = true;
  out[path] = rules;
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) rulesOf(child, root, `${path}.${name}`, out);
  if (schema.items) rulesOf(schema.items as Schema, root, `${path}[]`, out);
  if (schema.propertyNames) rulesOf(schema.propertyNames as Schema, root, `${path}{key}`, out);
  if (typeof schema.additionalProperties === 'object') rulesOf(schema.additionalProperties as Schema, root, `${path}{value}`, out);
  return out;
}

describe('OpenAPI document', () => {
  it('documents the request body with the limits and rules the gateway enforces (LIMITS of @dynamic-events/proto)', () => {
    const components = (openapi.components as { schemas: Record<string, Schema> }).schemas;
    const documented = rulesOf(components.DynamicEventRequest as Schema, openapi);
    const enforced = rulesOf(DYNAMIC_EVENT_SCHEMA as unknown as Schema, DYNAMIC_EVENT_SCHEMA as unknown as Schema);
    expect(Object.keys(enforced).length).toBeGreaterThan(20);
    expect(documented).toEqual(enforced);
  });

  it('documents the Idempotency-Key limit the gateway and registry enforce', () => {
    const post = (openapi.paths as Record<string, Record<string, { parameters: Array<{ name: string; schema: Schema }> }>>)['/api/platform/dh/dynamic-events']!.post!;
    const header = post.parameters.find((p) => p.name === IDEMPOTENCY_KEY_HEADER);
    expect(header?.schema).toMatchObject({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH });
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(OPENAPI_PATH);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('accepts the README example request and rejects a broken one', () => {
    expect(() => assertMatchesSchema('DynamicEventRequest', exampleEvent())).not.toThrow();
    expect(() => assertMatchesSchema('DynamicEventRequest', { source: {} })).toThrow(/event/);
  });

  it('documents exactly the routes and methods the gateway serves (read from its router)', () => {
    // Parameter names may differ (`:deviceName` and `{device_name}`): compare the shapes.
    const shape = (path: string) => path.replace(/:[A-Za-z_]+|\{[^}]+\}/g, '{}');
    // Never called: routeTable only registers the routes (a gRPC channel connects on its first call).
    const webhooks = createWebhookClient('127.0.0.1:1', { deadlineMs: 1, credential: 'unused' });
    const served = routeTable({
      config: { platformSegment: 'platform', publicBaseUrl: 'http://localhost:8080', dynamicEventsToken: undefined, adminToken: 'a'.repeat(32), maxBodyBytes: 1024, maxImageBytes: 1024, maxInflightBodyBytes: 1024 , maxStreams: 1000, maxStreamsPerToken: 200, maxStreamsPerClient: 100 },
      logger: pino({ level: 'silent' }),
      registry: fakeRegistry(),
      media: fakeMedia(),
      metrics: createMetrics(),
      tokens: (({ client, source }) => ({ client, source }))(fakeTokens()),
      webhooks,
    }).map(({ method, path }) => `${method} ${shape(path)}`);
    const documented = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
        .map((method) => `${method.toUpperCase()} ${shape(path)}`),
    );
    webhooks.close();
    expect(served).toContain('POST /api/platform/dh/settings/dynamic-events/webhooks/{}/deliveries/{}/retry');
    expect(served.length).toBeGreaterThan(5);
    expect([...new Set(documented)].sort()).toEqual([...new Set(served)].sort());
  });
});

describe('OpenAPI document: webhooks', () => {
  const at = '2026-11-21T08:20:04.123456789Z';
  const webhook = { id: 'w1', url: 'https://example.com/h', description: '', filter: { domains: [], kinds: ['event.created'] }, enabled: false, disabledReason: 'answered 410 Gone', createdAt: at, updatedAt: at };
  const delivery = {
    id: 'msg_1', eventId: null, type: 'device.created', status: 'failed' as const, attemptCount: 1, lastStatusCode: null, lastError: 'connection refused',
    nextAttemptAt: null, createdAt: at, succeededAt: null,
    attempts: [{ at, statusCode: null, durationMs: 3, error: 'connection refused', responseBody: '' }],
  };

  it("documents the admin API's webhook and delivery shapes as the gateway presents them", () => {
    expect(() => assertMatchesSchema('Webhook', presentWebhook(webhook))).not.toThrow();
    expect(() => assertMatchesSchema('Webhook', { ...presentWebhook(webhook), filter: { colour: [] } })).toThrow(/filter/);
    expect(() => assertMatchesSchema('Delivery', presentDelivery(delivery))).not.toThrow();
    expect(() => assertMatchesSchema('DeliveryWithAttempts', presentDeliveryWithAttempts(delivery))).not.toThrow();
    expect(() => assertMatchesSchema('DeliveryWithAttempts', presentDelivery(delivery))).toThrow(/attempts/);
  });

  it('documents the receiver payload and the Standard Webhooks headers for every kind of change', () => {
    const receivers = openapi.webhooks as Record<string, { post: { parameters: Array<{ $ref: string }> } }>;
    expect(Object.keys(receivers).sort()).toEqual(['device.created', 'event.created', 'event_type.created', 'object.created']);
    const parameters = (openapi.components as { parameters: Record<string, { name: string; in: string }> }).parameters;
    for (const receiver of Object.values(receivers)) {
      const headers = receiver.post.parameters.map((p) => parameters[p.$ref.split('/').at(-1)!]);
      expect(headers.map((h) => `${h?.in}:${h?.name}`)).toEqual(['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature']);
    }
    expect(() => assertMatchesSchema('WebhookPayload', { type: 'event.created', timestamp: at, data: {} })).not.toThrow();
    expect(() => assertMatchesSchema('WebhookPayload', { type: 'event.deleted', timestamp: at, data: {} })).toThrow(/type/);
  });
});
