/**
 * Real helm and kubectl for the chart and manifest tests: get-kube-tool.sh finds them on PATH or
 * fetches them once into a cache outside the tree. Like the database servers (servers.ts), a tool
 * that cannot be had fails the run under CI=true and skips the tests that need it elsewhere.
 */
import { execFileSync } from 'node:child_process';

export type KubeTool = 'helm' | 'kubectl';

const SCRIPT = new URL('./get-kube-tool.sh', import.meta.url).pathname;
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const found = new Map<KubeTool, string | undefined>();

/** The tool's path; undefined (with a warning) when it cannot be had outside CI; throws under CI. */
export function kubeTool(tool: KubeTool): string | undefined {
  if (found.has(tool)) return found.get(tool);
  let path: string | undefined;
  try {
    // The first call may download 37 MB; later calls only check the cached binary runs.
    path = execFileSync('bash', [SCRIPT, tool], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 }).trim();
  } catch (err) {
    if (inCi) throw new Error(`${tool} is required under CI but could not be found or fetched (test/support/get-kube-tool.sh): ${String(err)}`);
    console.warn(`[skip] no ${tool}: ${String(err)}`);
  }
  found.set(tool, path);
  return path;
}

/** Requires the tool: for code that runs only when kubeTool() already answered. */
export function requireKubeTool(tool: KubeTool): string {
  const path = kubeTool(tool);
  if (!path) throw new Error(`no ${tool} (test/support/get-kube-tool.sh)`);
  return path;
}
