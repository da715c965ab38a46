/**
 * Debian's Prometheus (`apt-get install prometheus`): promtool for the alert rules' unit tests, the
 * server for the dashboards' end-to-end test. Like helm (kube-tools.ts), a missing binary fails the
 * run under CI=true (.ci/run installs the package) and skips the tests that need it elsewhere.
 */
import { existsSync } from 'node:fs';

const inCi = process.env.CI === 'true' || process.env.CI === '1';

/** The binary's path; undefined (with a warning) when it is missing outside CI; throws under CI. */
export function prometheusTool(name: 'promtool' | 'prometheus'): string | undefined {
  const path = [`/usr/bin/${name}`, `/usr/local/bin/${name}`].find((candidate) => existsSync(candidate));
  if (path !== undefined) return path;
  if (inCi) throw new Error(`${name} is required under CI (Debian's prometheus package: apt-get install -y prometheus)`);
  console.warn(`[skip] no ${name}: apt-get install -y prometheus`);
  return undefined;
}
