import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
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

  it('documents every route the gateway serves', () => {
    expect(Object.keys(openapi.paths as object).sort()).toEqual([
      '/api/platform/dh/devices',
      '/api/platform/dh/devices/{device_name}',
      '/api/platform/dh/dynamic-events',
      '/api/platform/dh/dynamic-events/stream',
      '/api/platform/dh/dynamic-events/{id}',
      '/api/platform/dh/event-types',
      '/api/platform/dh/event-types/{domain}/{event_type}',
      '/api/platform/dh/media/{key}',
      '/api/platform/dh/objects',
      '/api/platform/dh/objects/{object_full_id}',
      '/healthz',
      '/readyz',
    ]);
  });
});
