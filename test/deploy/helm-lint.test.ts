// `helm lint --strict` with every ci/*-values.yaml, and the chart's Kubernetes floor. What the
// rendered objects contain is checked in helm-chart.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, ciValuesFiles } from '../support/chart-files.js';
import { KUBE_VERSION, lintChart, renderChart } from '../support/helm.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const CI_FILES = ciValuesFiles();
const ciPath = (file: string): string => join(CHART_DIR, 'ci', file);

describe.skipIf(!helmFound)('helm lint --strict and the Kubernetes floor', () => {
  it('finds the CI values files (chart-testing convention: ci/*-values.yaml)', () => {
    expect(CI_FILES).toEqual(expect.arrayContaining(['default-values.yaml', 'full-values.yaml']));
  });

  it.each(CI_FILES)('helm lint --strict passes with ci/%s', (file) => {
    expect(lintChart(ciPath(file))).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders for Kubernetes 1.27 and refuses an older cluster (Chart.yaml kubeVersion: native gRPC probes need 1.27)', () => {
    expect(KUBE_VERSION).toBe('1.27.0');
    expect(renderChart([ciPath('default-values.yaml')]).objects.length).toBeGreaterThan(10);
    expect(() => renderChart([ciPath('default-values.yaml')], { kubeVersion: '1.26.15' })).toThrow(/kubeVersion/);
  });
});
