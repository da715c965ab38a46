import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Logger } from '@dynamic-events/proto/runtime';

/** One file of the console's build, held in memory with what its response needs. */
export interface ConsoleFile {
  body: Buffer;
  contentType: string;
  /** A strong validator: the SHA-256 of the bytes. */
  etag: string;
  lastModified: Date;
}

/** The console's build (`console/dist`), or why there is none. */
export type ConsoleBundle =
  | { built: true; index: ConsoleFile; assets: ReadonlyMap<string, ConsoleFile> }
  | { built: false };

/** What the build emits; anything else is served as bytes (and nosniff keeps it so). */
const CONTENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.map', 'application/json; charset=utf-8'],
  ['.json', 'application/json; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.ico', 'image/x-icon'],
  ['.woff2', 'font/woff2'],
  ['.txt', 'text/plain; charset=utf-8'],
]);

function readConsoleFile(path: string): ConsoleFile {
  const body = readFileSync(path);
  return {
    body,
    contentType: CONTENT_TYPES.get(extname(path).toLowerCase()) ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
    lastModified: statSync(path).mtime,
  };
}

/** The regular files directly in `dir/assets` (no subfolders, no symbolic links), by name. */
function readAssets(dir: string): Map<string, ConsoleFile> {
  const assets = new Map<string, ConsoleFile>();
  let entries;
  try {
    entries = readdirSync(join(dir, 'assets'), { withFileTypes: true });
  } catch {
    return assets;
  }
  for (const entry of entries) if (entry.isFile()) assets.set(entry.name, readConsoleFile(join(dir, 'assets', entry.name)));
  return assets;
}

/**
 * Reads the console's build once, at start, into memory: `index.html` and the files of `assets/`.
 * The bundle is small (tens of KB), so requests cost no file I/O, and a request can only name a
 * file of this fixed set: no path is ever built from a URL, so `..`, encoded dots, absolute paths
 * or NUL cannot reach any other file. A rebuild takes a restart, as any other code change.
 * Without `index.html` (the TypeScript was compiled, the console was not built) the bundle is
 * "not built": logged here, once, and the console URL answers 503 while the rest of the gateway works.
 */
export function loadConsoleBundle(dir: string, logger: Logger): ConsoleBundle {
  let index: ConsoleFile;
  try {
    index = readConsoleFile(join(dir, 'index.html'));
  } catch (err) {
    logger.warn({ dir, code: (err as NodeJS.ErrnoException).code }, 'settings console not built (no index.html): its URL answers 503; `npm run build` builds it');
    return { built: false };
  }
  return { built: true, index, assets: readAssets(dir) };
}
