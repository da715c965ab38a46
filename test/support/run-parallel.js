#!/usr/bin/env node
/**
 * Runs groups of npm scripts side by side, each group's scripts one after another:
 *
 *   node test/support/run-parallel.js "proto:check lint" "dashboards:check typecheck"
 *
 * `npm test`'s static checks are each a single-threaded process (ESLint, tsc), so two groups use the
 * two cores that running them in a row leaves half idle. Scripts that write the same build output
 * (every `tsc -b`) belong in one group. Each group's output is held and printed whole when it ends,
 * so the lines of two tools never interleave; the exit status is the first failed script's.
 */
import { spawn } from 'node:child_process';

const groups = process.argv.slice(2).map((group) => group.split(/\s+/).filter(Boolean));
if (groups.length === 0 || groups.some((g) => g.length === 0)) {
  console.error('usage: run-parallel.js "script script…" ["script…" …]');
  process.exit(2);
}

/** Runs one npm script with its output collected; resolves with its exit status. */
function runScript(name, chunks) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) => {
      chunks.push(Buffer.from(`${err.message}\n`));
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** A group's scripts in order, stopping at the first that fails; prints its output when done. */
async function runGroup(scripts) {
  const started = Date.now();
  for (const name of scripts) {
    const chunks = [];
    const status = await runScript(name, chunks);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\n> ${name} (${status === 0 ? 'passed' : `failed, exit ${status}`}; ${seconds} s into its group)\n`);
    process.stdout.write(Buffer.concat(chunks));
    if (status !== 0) return status;
  }
  return 0;
}

const statuses = await Promise.all(groups.map(runGroup));
process.exit(statuses.find((s) => s !== 0) ?? 0);
