/** The webhook admin API's body checks against hostile and arbitrary JSON (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '@dynamic-events/proto';
import { createWebhookAdminInput, deliveryStatusOf } from '../src/webhooks/admin-input.js';

const input = createWebhookAdminInput();

/** Runs `read`; answers what it threw when that is a refusal, and fails on anything else thrown. */
function refusalOf(read: () => unknown): AppError | undefined {
  try {
    read();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
}

describe('webhook admin input', () => {
  it('answers any JSON value with a draft or an INVALID_ARGUMENT naming a field, never another error', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        for (const read of [() => input.draft(value), () => input.change(value), () => input.since(value)]) {
          const refusal = refusalOf(read);
          if (refusal) {
            expect(refusal.code).toBe('INVALID_ARGUMENT');
            expect(refusal.details.field).toEqual(expect.any(String));
            expect(refusal.message).toContain(refusal.details.field);
          }
        }
      }),
    );
  });

  it('keeps every string of a well-shaped body exactly as sent (the registry owns the values)', () => {
    const strings = fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 5 });
    const filter = fc.record({ domains: strings, event_types: strings, device_names: strings, kinds: strings }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), filter, fc.boolean(), (url, description, f, enabled) => {
        fc.pre(!url.includes('\u0000') && !description.includes('\u0000') && !JSON.stringify(f).includes('\\u0000'));
        const draft = input.draft({ url, description, filter: f, enabled });
        expect(draft).toEqual({ url, description, enabled, filter: { domains: f.domains, eventTypes: f.event_types, deviceNames: f.device_names, kinds: f.kinds } });
      }),
    );
  });

  it.each([
    ['{"url": "https://a", "__proto__": {"enabled": false}}', '__proto__ is not a known field'],
    ['{"url": "https://a", "filter": {"constructor": []}}', 'filter.constructor is not a known field'],
    ['{"url": "https://a\\u0000"}', 'url must not contain NUL characters (U+0000)'],
  ])('refuses %s naming the field', (text, message) => {
    expect(refusalOf(() => input.draft(JSON.parse(text)))?.message).toBe(message);
  });

  it('reads the delivery status as one of its three words', () => {
    expect(['pending', 'succeeded', 'failed', undefined].map(deliveryStatusOf)).toEqual(['pending', 'succeeded', 'failed', undefined]);
    for (const bad of ['', 'Pending', 'unspecified', '__proto__']) expect(refusalOf(() => deliveryStatusOf(bad))?.details.field).toBe('status');
  });
});
