/**
 * A real browser for the console's tests: Debian's `chromium` (apt) driven by playwright-core
 * through `executablePath` (Playwright's own browser download cannot work on this network). A
 * missing browser fails under CI=true, never skips; elsewhere chromiumPath() lets a test file skip.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

// Read at each call, so a test can change them.
const inCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';
/** Where the browser is: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
const executable = (): string => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Headless, no sandbox (tests may run as root), and nothing that talks to the network by itself:
 * without the networking flags Chromium keeps calling hosts a closed network refuses.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const missing = (): Error =>
  new Error(
    `Chromium not found at ${executable()}: install Debian's package (apt-get install -y --no-install-recommends chromium; .ci/run does) or set CHROMIUM_PATH`,
  );

/** The browser's path; undefined (with a warning) when it is missing outside CI; throws under CI. */
export function chromiumPath(): string | undefined {
  if (existsSync(executable())) return executable();
  if (inCi()) throw missing();
  console.warn(`${missing().message}: the browser tests are skipped (under CI=true they fail)`);
  return undefined;
}

/**
 * Launches the browser; throws a clear error when it is missing. Each launch gets a fresh profile
 * (Playwright creates a temporary user-data directory per launch and removes it on close), so no
 * storage, cookie or cache passes from one launch to the next. Close it after the test.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executable())) throw missing();
  return chromium.launch({ executablePath: executable(), headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}
