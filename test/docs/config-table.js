#!/usr/bin/env node
/**
 * Writes the configuration table of deploy/README.md from the env schemas of the three services
 * and the launcher (`npm run docs:config`); with --check [file], exits 1 when deploy/README.md (or
 * `file`) differs: npm test runs that through test/docs/config-table.test.ts. Reads the built code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderEnvTable } from '@dynamic-events/proto/runtime';
import { LAUNCHER_ENV } from '../../deploy/local/dist/config.js';
import { GATEWAY_ENV } from '@dynamic-events/ingest-gateway/config';
import { MEDIA_ENV } from '@dynamic-events/media-service/config';
import { REGISTRY_ENV } from '@dynamic-events/registry-service/config';

const README = new URL('../../deploy/README.md', import.meta.url).pathname;
const START = '<!-- config-table: generated from the env schemas by `npm run docs:config`; a test keeps it current -->';
const END = '<!-- /config-table -->';

/** deploy/README.md with its configuration table regenerated. */
export function withCurrentTable(readme) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`deploy/README.md lacks the markers ${START} … ${END}`);
  const table = renderEnvTable([
    { label: 'gateway', vars: GATEWAY_ENV.vars },
    { label: 'registry', vars: REGISTRY_ENV.vars },
    { label: 'media', vars: MEDIA_ENV.vars },
    { label: 'launcher', vars: LAUNCHER_ENV.vars, launcher: true },
  ]);
  return `${readme.slice(0, start)}${START}\n${table}\n${readme.slice(end)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv[2] === '--check';
  const file = (check && process.argv[3]) || README;
  const readme = readFileSync(file, 'utf8');
  const current = withCurrentTable(readme);
  if (check) {
    if (current !== readme) {
      console.error(`${file}: the configuration table differs from the env schemas: run \`npm run docs:config\``);
      process.exit(1);
    }
  } else {
    writeFileSync(README, current);
  }
}
