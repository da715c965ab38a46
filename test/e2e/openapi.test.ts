import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { routeTable } from '../../ingest-gateway/src/app.js';
import { createMetrics } from '../../ingest-gateway/src/metrics.js';
import { fakeMedia, fakeRegistry } from '../../ingest-gateway/test/helpers.js';
import { exampleEvent } from '../support/example.js';
import { assertMatchesSchema, openapi, OPENAPI_PATH } from '../support/openapi.js';

describe('OpenAPI document', () => {
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
    const served = routeTable({
      config: { platformSegment: 'platform', publicBaseUrl: 'http://localhost:8080', dynamicEventsToken: undefined, maxBodyBytes: 1024, maxImageBytes: 1024, maxInflightBodyBytes: 1024 },
      logger: pino({ level: 'silent' }),
      registry: fakeRegistry(),
      media: fakeMedia(),
      metrics: createMetrics(),
    }).map(({ method, path }) => `${method} ${shape(path)}`);
    const documented = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
        .map((method) => `${method.toUpperCase()} ${shape(path)}`),
    );
    expect(served.length).toBeGreaterThan(5);
    expect([...new Set(documented)].sort()).toEqual([...new Set(served)].sort());
  });
});
