/**
 * TokenService's input rules over real gRPC: every rule refuses with INVALID_ARGUMENT naming the
 * field path and the rule, and a refused call changes nothing (no token, no new version).
 */
import { registry } from '@dynamic-events/proto';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../test/support/servers.js';
import { unique, useFreshRegistry } from './helpers.js';
import { expectRefused, inSeconds, tokenApi, versionOf, type TokenApi } from './token-api.js';

const up = await postgresAvailable();

let api: TokenApi;
if (up) useFreshRegistry((started) => (api = tokenApi(started.address)));

const policy = (p: Partial<registry.TokenPolicy>): registry.TokenPolicy => ({ mayCreate: undefined, domains: undefined, rate: undefined, ...p });
const list = (...values: string[]) => ({ values });

/** [what, request fields, field, rule, message (when checked)] */
const CREATE_CASES: Array<[string, Partial<registry.CreateTokenRequest>, string, string, string?]> = [
  ['no name', { name: '' }, 'name', 'required', 'name is required'],
  ['a name of 101 characters', { name: 'é'.repeat(101) }, 'name', 'max-length', 'name must be at most 100 characters'],
  ['a control character in the name', { name: 'tab\there' }, 'name', 'characters'],
  ['the bootstrap token name', { name: 'DYNAMIC_EVENTS_TOKEN' }, 'name', 'reserved'],
  ['the bootstrap token name in lower case', { name: 'dynamic_events_token' }, 'name', 'reserved'],
  ['the bootstrap token name in mixed case', { name: 'Dynamic_Events_Token' }, 'name', 'reserved'],
  ['a bidi override in the name', { name: 'vendor\u202ex' }, 'name', 'characters'],
  ['a right-to-left mark in the name', { name: '\u200fvendor' }, 'name', 'characters'],
  ['a name of only spaces', { name: '   ' }, 'name', 'not-empty', 'name must not be empty'],
  ['a name of only zero-width characters', { name: '\u200b\u200c\u2060' }, 'name', 'not-empty'],
  ['a decomposed (NFD) name', { name: 'came\u0301ra' }, 'name', 'nfc'],
  ['an unknown kind', { policy: policy({ mayCreate: list('devices', 'users') }) }, 'policy.may_create[1]', 'one-of', 'policy.may_create[1] must be one of devices, objects, event_types'],
  ['a kind twice', { policy: policy({ mayCreate: list('objects', 'objects') }) }, 'policy.may_create[1]', 'duplicate'],
  ['an empty domain', { policy: policy({ domains: list('') }) }, 'policy.domains[0]', 'required'],
  ['a domain of 256 characters', { policy: policy({ domains: list(`${'a'.repeat(127)}.${'b'.repeat(128)}`) }) }, 'policy.domains[0]', 'max-length'],
  ['an uppercase domain', { policy: policy({ domains: list('acme.x', 'Acme.camera') }) }, 'policy.domains[1]', 'domain-pattern'],
  ['an empty label', { policy: policy({ domains: list('acme..camera') }) }, 'policy.domains[0]', 'domain-pattern'],
  ['a wildcard inside', { policy: policy({ domains: list('acme.*.camera') }) }, 'policy.domains[0]', 'domain-pattern'],
  ['a bare trailing dot', { policy: policy({ domains: list('acme.') }) }, 'policy.domains[0]', 'domain-pattern'],
  ['a domain twice', { policy: policy({ domains: list('acme.*', 'b', 'acme.*') }) }, 'policy.domains[2]', 'duplicate'],
  ['1001 domains', { policy: policy({ domains: list(...Array.from({ length: 1001 }, (_, i) => `d${i}`)) }) }, 'policy.domains', 'max-items'],
  ['negative max_devices', { policy: policy({ maxDevices: '-1' }) }, 'policy.max_devices', 'range'],
  ['max_devices above int4', { policy: policy({ maxDevices: '2147483648' }) }, 'policy.max_devices', 'range'],
  ['max_objects above int4', { policy: policy({ maxObjects: '9223372036854775807' }) }, 'policy.max_objects', 'range'],
  ['a zero rate', { policy: policy({ rate: { perSecond: 0, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['a NaN rate', { policy: policy({ rate: { perSecond: Number.NaN, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['an infinite rate', { policy: policy({ rate: { perSecond: Number.POSITIVE_INFINITY, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['the smallest double as a rate', { policy: policy({ rate: { perSecond: 5e-324, burst: 1 } }) }, 'policy.rate.per_second', 'range', 'policy.rate.per_second must be a number from 0.001 to 1000000'],
  ['a rate of 1e-308', { policy: policy({ rate: { perSecond: 1e-308, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['a rate just below the minimum', { policy: policy({ rate: { perSecond: 0.000999, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['a rate above a million', { policy: policy({ rate: { perSecond: 1_000_001, burst: 1 } }) }, 'policy.rate.per_second', 'range'],
  ['an unset burst', { policy: policy({ rate: { perSecond: 5, burst: 0 } }) }, 'policy.rate.burst', 'min', 'policy.rate.burst must be at least 1'],
  ['a burst above a million', { policy: policy({ rate: { perSecond: 5, burst: 1_000_001 } }) }, 'policy.rate.burst', 'max'],
  ['an expiry in the past', { expiresAt: inSeconds(-5) }, 'expires_at', 'future', 'expires_at must be in the future'],
  ['an expiry out of range', { expiresAt: { seconds: '1', nanos: 2_000_000_000 } }, 'expires_at', 'timestamp'],
  ['an expiry that rounds into year 10000', { expiresAt: { seconds: '253402300799', nanos: 999_999_999 } }, 'expires_at', 'timestamp'],
];

describe.skipIf(!up)('TokenService input rules', () => {
  it.each(CREATE_CASES)('CreateToken refuses %s', async (_, request, field, rule, message) => {
    const before = { version: await versionOf(api), count: (await api.list()).length };
    const err = await expectRefused(api.create({ name: unique('valid'), ...request }), field, rule);
    if (message !== undefined) expect(err.message).toBe(message);
    expect({ version: await versionOf(api), count: (await api.list()).length }).toEqual(before);
  });

  it('accepts the limits themselves', async () => {
    const { token } = await api.create({
      name: '🎥'.repeat(100),
      policy: policy({
        mayCreate: list('devices', 'objects', 'event_types'),
        domains: list('*', 'acme.camera.*', 'a_b-c.d9', 'x'.repeat(255)),
        maxDevices: '2147483647',
        maxObjects: '0',
        rate: { perSecond: 1_000_000, burst: 1_000_000 },
      }),
      expiresAt: inSeconds(5),
    });
    expect(token!.name).toBe('🎥'.repeat(100));
    const slowest = await api.create({ name: unique('slowest'), policy: policy({ rate: { perSecond: 0.001, burst: 1 } }) });
    expect(slowest.token!.policy!.rate).toEqual({ perSecond: 0.001, burst: 1 });
    expect(token!.policy!.maxDevices).toBe('2147483647');
  });

  it('UpdateToken applies the same rules, and refuses a cleared and a new expiry at once', async () => {
    const { token } = await api.create({ name: unique('target') });
    const id = token!.id;
    const version = await versionOf(api);
    await expectRefused(api.update({ id, name: '' }), 'name', 'required');
    await expectRefused(api.update({ id, name: 'DYNAMIC_EVENTS_TOKEN' }), 'name', 'reserved');
    await expectRefused(api.update({ id, policy: policy({ rate: { perSecond: 1, burst: 0 } }) }), 'policy.rate.burst', 'min');
    await expectRefused(api.update({ id, expiresAt: inSeconds(-1) }), 'expires_at', 'future');
    await expectRefused(api.update({ id, expiresAt: inSeconds(60), clearExpiresAt: true }), 'clear_expires_at', 'conflict');
    expect(await versionOf(api)).toBe(version);
    expect(await api.get(id)).toEqual(token);
  });

  it('UpdateAuthSettings needs its settings (an unset message must not mean "off")', async () => {
    await api.setRequireToken(true);
    await expectRefused(api.updateSettings(undefined), 'settings', 'required');
    expect(await api.requireToken()).toBe(true);
  });
});
