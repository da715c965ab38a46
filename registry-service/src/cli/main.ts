#!/usr/bin/env node
/**
 * The registry's operator CLI: `node registry-service/dist/cli/main.js tokens list` (see run.ts and
 * `--help`). Like a service's main.ts, the only file of the CLI that touches the process.
 */
import { runCli } from './run.js';

const out = { stdout: (text: string) => process.stdout.write(text), stderr: (text: string) => process.stderr.write(text) };
// eslint-disable-next-line no-restricted-properties -- the CLI's entry point, its main.ts
process.exitCode = await runCli(process.argv.slice(2), process.env, out);
