import { readFileSync } from 'node:fs';
import { Router } from '@koa/router';
import { describe, expect, it } from 'vitest';
import { checkMatchedRoute, matchedRouteOf, proveMatchedRoute, RouterBehaviourChanged, type ProbeRouter } from '../src/http/matched-route.js';

/** A router stand-in that routes by running the handler after doing `mark` to the context. */
const standIn = (mark: (ctx: Record<string, unknown>) => void): ProbeRouter => ({
  get: () => undefined,
  routes: () => (ctx: never) => mark(ctx as Record<string, unknown>),
});

describe('the route pattern @koa/router matched', () => {
  it('is where matchedRouteOf reads it, with the installed router', () => {
    expect(() => proveMatchedRoute(new Router())).not.toThrow();
    expect(() => checkMatchedRoute()).not.toThrow();
  });

  it.each([
    ['a router that leaves it unset', standIn(() => undefined)],
    ['a router that sets the request path instead', standIn((ctx) => (ctx.routerPath = '/matched-route-probe/7'))],
    ['a router that keeps a RegExp', standIn((ctx) => (ctx.routerPath = /matched-route-probe/))],
    ['a router that keeps it only in _matchedRoute', standIn((ctx) => (ctx._matchedRoute = '/matched-route-probe/:id'))],
  ])('fails the start loudly on %s, naming the module to update', (_, router) => {
    expect(() => proveMatchedRoute(router)).toThrow(RouterBehaviourChanged);
    expect(() => proveMatchedRoute(router)).toThrow(/@koa\/router .*matched-route\.ts/);
  });

  it('reads a string pattern only', () => {
    expect(matchedRouteOf({ routerPath: '/api/x/:id' })).toBe('/api/x/:id');
    expect(matchedRouteOf({ routerPath: /x/ })).toBeUndefined();
    expect(matchedRouteOf({})).toBeUndefined();
  });

  it('runs against the exact @koa/router version ingest-gateway/package.json pins', () => {
    const pinned = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@koa/router'];
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { version?: string }> };
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['node_modules/@koa/router']?.version).toBe(pinned);
  });
});
