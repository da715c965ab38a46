#!/usr/bin/env node
/**
 * The registry's operator CLI: `node registry-service/dist/cli/main.js tokens list` (see run.ts and
 * `--help`). Like a service's main.ts, the only file of the CLI that touches the process.
 */
import { runCli } from './run.js';

// A write to a closed pipe (`… | head -1`) fails with EPIPE: the write's callback hands it to
// runCli, which says what was lost; the stream's own 'error' event would otherwise end the process
// with a stack trace before that.
process.stdout.on('error', () => undefined);
const out = {
  stdout: (text: string) => new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve()))),
  stderr: (text: string) => void process.stderr.write(text),
};
// eslint-disable-next-line no-restricted-properties -- the CLI's entry point, its main.ts
process.exitCode = await runCli(process.argv.slice(2), process.env, out);
