// The README's `values-prod.yaml` (Operations, "Install with Helm"), pasted as shown: helm lints and
// renders it, and every container runs the images the block names with the chart's appVersion.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readChartFile } from '../support/chart-files.js';
import { lintChart, renderChart } from '../support/helm.js';
import { podSpecs } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';
import { REPO_ROOT } from '../support/stack.js';

const helmFound = kubeTool('helm') !== undefined;

/** The ```yaml block that follows the README's mention of `values-prod.yaml`. */
function readmeValuesBlock(): string {
  const readme = readFileSync(`${REPO_ROOT}README.md`, 'utf8');
  const mention = readme.indexOf('(`values-prod.yaml`');
  const block = /```yaml\n([\s\S]*?)\n```/.exec(readme.slice(mention));
  if (mention < 0 || !block) throw new Error('README: no ```yaml block after `values-prod.yaml`');
  return block[1]!;
}

const dir = mkdtempSync(join(tmpdir(), 'readme-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const valuesFile = join(dir, 'values-prod.yaml');
writeFileSync(valuesFile, readmeValuesBlock());

describe.skipIf(!helmFound)("the README's values-prod.yaml", () => {
  it('lints with --strict', () => {
    expect(lintChart(valuesFile)).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('runs every service from the registry it names, at the chart appVersion', () => {
    const appVersion = (parse(readChartFile('Chart.yaml')) as { appVersion: string }).appVersion;
    const images = new Set(podSpecs(renderChart([valuesFile]).objects).flatMap(({ spec }) => [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.image)));
    expect([...images].sort()).toEqual(
      ['ingest-gateway', 'media-service', 'registry-service'].map((service) => `registry.example.com/dynamic-events/${service}:${appVersion}`),
    );
  });
});
