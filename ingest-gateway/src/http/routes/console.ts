import type { Router } from '@koa/router';
import { AppError } from '@dynamic-events/proto';
import type { ConsoleBundle, ConsoleFile } from '../console-bundle.js';
import type { GatewayContext, GatewayMiddleware, GatewayState } from '../context.js';

/**
 * Every response under the console's path (index, assets, redirects, errors): the page may load
 * only its own files and talk only to this origin, runs no inline script or style, cannot be
 * framed (X-Frame-Options too, for older browsers), shares no window or file with another origin,
 * and sends no Referer (which could carry a filter) anywhere.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // frame-ancestors for browsers that predate it.
  'X-Frame-Options': 'DENY',
  // No other origin's window keeps a handle on the page, and no other origin may embed its files.
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Hashed names change with their content: a browser may keep them forever. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The console's path: `{base}/settings/dynamic-events`, beside the admin API it calls. */
const consolePath = (base: string): string => `${base}/settings/dynamic-events`;

/**
 * CONSOLE_HEADERS on every response whose path is the console's or below it, the admin API's JSON
 * and the router's 404/405 included. Compared case-insensitively, as the router matches paths.
 */
export function consoleHeaders(base: string): GatewayMiddleware {
  const path = consolePath(base).toLowerCase();
  return (ctx, next) => {
    const asked = ctx.path.toLowerCase();
    if (asked === path || asked.startsWith(`${path}/`)) ctx.set(CONSOLE_HEADERS);
    return next();
  };
}

/** A browser (its Accept prefers HTML) rather than an API client (any type, JSON, or no Accept at all). */
const wantsHtml = (ctx: GatewayContext): boolean => ctx.accepts('application/json', 'text/html') === 'text/html';

function send(ctx: GatewayContext, file: ConsoleFile, cacheControl: string): void {
  ctx.set({ 'Cache-Control': cacheControl, 'Content-Type': file.contentType });
  ctx.etag = file.etag;
  ctx.lastModified = file.lastModified;
  // Koa judges freshness only for a 2xx status.
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = file.body;
}

const notBuilt = (): AppError =>
  new AppError('UNAVAILABLE', 'the settings console is not built (ingest-gateway/console/dist is missing): run `npm run build`', { retryAfterSeconds: 60 });

/**
 * The settings console (README, Settings console): GET|HEAD `{base}/settings/dynamic-events/` is its
 * page (never cached), `…/assets/{name}` its hashed files (cached forever); a browser asking for the
 * admin API's `{base}/settings/dynamic-events` is sent to the page (308), API clients get the JSON.
 * Served only with the admin API (app.ts): without ADMIN_TOKEN these paths answer 404 as the admin
 * API does. `bundle` undefined or not built: 503 naming the missing build. Registered before the
 * admin routes, whose GET of the same path (the router matches it with a trailing slash too) follows.
 */
export function consoleRoutes(router: Router<GatewayState>, base: string, deps: { bundle: ConsoleBundle | undefined }): void {
  const settings = consolePath(base);
  const bundle = deps.bundle?.built ? deps.bundle : undefined;

  router.get(`${settings}/`, (ctx) => {
    if (bundle === undefined) throw notBuilt();
    send(ctx, bundle.index, 'no-store');
  });
  router.get(`${settings}/assets/:name`, (ctx) => {
    if (bundle === undefined) throw notBuilt();
    // A name is looked up among the files read at start: nothing here ever becomes a file path.
    const file = bundle.assets.get(ctx.params.name ?? '');
    if (file === undefined) throw new AppError('NOT_FOUND', 'no such console file');
    send(ctx, file, ASSET_CACHE);
  });
  router.get(settings, (ctx, next) => {
    if (!wantsHtml(ctx)) return next();
    ctx.status = 308;
    ctx.redirect(`${settings}/`);
  });
}
