/** The console's routes: the Overview first and the default, links carrying a screen's filters. */
import { describe, expect, it } from 'vitest';
import { paramsOf, SCREENS, screenHref, screenOf } from '../../console/src/routes.js';

describe('console routes', () => {
  it('puts the Overview first and opens it when the hash names no screen', () => {
    expect(SCREENS[0]).toEqual({ id: 'overview', name: 'Overview' });
    expect(screenOf('')).toBe('overview');
    expect(screenOf('#/nope')).toBe('overview');
    expect(screenOf('#/tokens')).toBe('tokens');
  });

  it('reads a screen and its filters from a link, hostile names included', () => {
    const href = screenHref('events', { device_name: '<img src=x onerror=alert(1)>', since: '2026-12-02T10:05:00.000Z', domain: '', object: undefined });
    expect(screenOf(href)).toBe('events');
    expect(paramsOf(href)).toEqual({ device_name: '<img src=x onerror=alert(1)>', since: '2026-12-02T10:05:00.000Z' });
    expect(paramsOf('#/devices')).toEqual({});
    expect(screenHref('devices')).toBe('#/devices');
  });
});
