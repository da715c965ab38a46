/** The token form's policy and body, and where an API refusal is shown. */
import { describe, expect, it } from 'vitest';
import { fieldOf } from '../../console/src/api.js';
import { bodyOf, EMPTY_FORM, formOf, inputOf, policyOf } from '../../console/src/token-form-model.js';

describe('console token form', () => {
  it('sends no restriction for an untouched form, and only what is filled in', () => {
    expect(policyOf(EMPTY_FORM)).toEqual({});
    const values = { ...EMPTY_FORM, mayCreate: { devices: false, objects: true, event_types: false }, domains: ' acme.*\n\nb.c \n', maxObjects: '5', perSecond: '0.5', burst: '' };
    expect(policyOf(values)).toEqual({ may_create: ['objects'], domains: ['acme.*', 'b.c'], max_objects: 5, rate: { per_second: 0.5 } });
    expect(policyOf({ ...EMPTY_FORM, mayCreate: { devices: false, objects: false, event_types: false } })).toEqual({ may_create: [] });
    expect(policyOf({ ...EMPTY_FORM, maxDevices: 'ten' })).toEqual({ max_devices: 'ten' });
  });

  it('reads Expires at as UTC; clearing it on edit removes the expiry', () => {
    expect(bodyOf({ ...EMPTY_FORM, name: 'a', expiresAt: '2099-01-02T03:04' }, false)).toEqual({ name: 'a', policy: {}, expires_at: '2099-01-02T03:04:00Z' });
    expect(bodyOf({ ...EMPTY_FORM, name: 'a' }, false)).toEqual({ name: 'a', policy: {} });
    expect(bodyOf({ ...EMPTY_FORM, name: 'a' }, true)).toEqual({ name: 'a', policy: {}, expires_at: null });
  });

  it('fills the form from a token and sends its policy back unchanged', () => {
    const policy = { may_create: ['devices', 'event_types'], domains: ['a.*'], max_devices: 3, rate: { per_second: 2, burst: 4 } };
    const token = { id: 'i', name: 'n', prefix: 'dhe_', policy, created_at: '', expires_at: '2099-01-02T03:04:00Z', last_used_at: null, revoked_at: null, read_only: false };
    expect(bodyOf(formOf(token), true)).toEqual({ name: 'n', policy, expires_at: '2099-01-02T03:04:00Z' });
  });

  it('shows a refusal next to the input its field names', () => {
    expect(fieldOf({ error: 'policy.rate.burst must be an integer', field: 'policy.rate.burst', rule: 'type' })).toBe('policy.rate.burst');
    expect(fieldOf({ error: 'a token named "n" already exists', field: 'name', rule: 'unique' })).toBe('name');
    // The message's wording is never read: only the body's field says where a refusal belongs.
    expect(fieldOf({ error: 'policy.domains[2] repeats "a"' })).toBeUndefined();
    expect(fieldOf({ error: 'invalid admin bearer token' })).toBeUndefined();
    expect(['name', 'policy.may_create[0]', 'policy.domains', 'policy.max_devices', 'policy.max_objects', 'policy.rate', 'policy.rate.per_second', 'policy.rate.burst', 'expires_at', 'body'].map(inputOf)).toEqual([
      'name', 'mayCreate', 'domains', 'maxDevices', 'maxObjects', 'perSecond', 'perSecond', 'burst', 'expiresAt', undefined,
    ]);
  });
});
