// Writes helm/dynamic-events/dashboards/*.json from the dashboards as code; `--check` writes nothing
// and fails when a committed file differs from what the code builds (npm test runs it).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardFiles } from './dashboard-files.js';

const OUT_DIR = fileURLToPath(new URL('../../../helm/dynamic-events/dashboards/', import.meta.url));
const files = dashboardFiles();

if (process.argv.includes('--check')) {
  const committed = readdirSync(OUT_DIR).filter((f) => f.endsWith('.json'));
  const names = [...new Set([...committed, ...Object.keys(files)])].sort();
  const stale = names.filter((name) => !committed.includes(name) || files[name] !== readFileSync(join(OUT_DIR, name), 'utf8'));
  if (stale.length > 0) {
    console.error(`dashboards: out of date, run \`npm run dashboards\`:\n  ${stale.join('\n  ')}`);
    process.exit(1);
  }
  console.log('dashboards: up to date');
} else {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(OUT_DIR, name), text);
}
