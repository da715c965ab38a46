// The chart's Grafana dashboard and Prometheus alert rules, rendered by a real `helm template`:
// off by default, on by values; the dashboard is the generator's output (deploy/dashboards, never
// edited by hand) and the PrometheusRule holds exactly the rules file promtool tests
// (alert-rules.test.ts), so neither can drift from what is shipped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dashboardFiles } from '../../deploy/dashboards/dashboard-files.js';
import { CHART_DIR, type JsonObject } from '../support/chart-files.js';
import { findObject, renderChart } from '../support/helm.js';
import { validateObjects } from '../support/k8s.js';
import { kubeTool } from '../support/kube-tools.js';

const helmFound = kubeTool('helm') !== undefined;
const base = join(CHART_DIR, 'ci/default-values.yaml');
const render = (...overrides: JsonObject[]) => renderChart([base, ...overrides]).objects;
const RULES_FILE = join(CHART_DIR, 'rules/dynamic-events.rules.yaml');

describe('the dashboards in the chart', () => {
  it('are the generator’s output, byte for byte (npm run dashboards writes them)', () => {
    const files = dashboardFiles();
    expect(Object.keys(files)).toEqual(['dynamic-events.json']);
    for (const [file, text] of Object.entries(files)) expect(readFileSync(join(CHART_DIR, 'dashboards', file), 'utf8'), file).toBe(text);
  });
});

describe.skipIf(!helmFound)('dashboards and alert rules in the chart', () => {
  it('renders neither by default', () => {
    const objects = render();
    expect(objects.filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    expect(objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboards'))).toEqual([]);
  });

  it('ships the dashboard as a ConfigMap for Grafana’s sidecar, its label and annotations configurable', () => {
    const objects = render({ metrics: { dashboards: { enabled: true } } });
    expect(validateObjects(objects)).toEqual([]);
    const map = findObject(objects, 'ConfigMap', 'test-dynamic-events-dashboards');
    expect(map.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/instance': 'test' });
    const data = map.data as Record<string, string>;
    expect(Object.keys(data)).toEqual(['dynamic-events.json']);
    expect(data['dynamic-events.json']).toBe(readFileSync(join(CHART_DIR, 'dashboards/dynamic-events.json'), 'utf8'));
    const custom = findObject(render({ metrics: { dashboards: { enabled: true, labels: { grafana_dashboard: null, 'dashboards.example.com/load': 'yes' }, annotations: { grafana_folder: 'Events' } } } }), 'ConfigMap', 'test-dynamic-events-dashboards');
    expect(custom.metadata.labels).toMatchObject({ 'dashboards.example.com/load': 'yes' });
    expect(custom.metadata.labels).not.toHaveProperty('grafana_dashboard');
    expect(custom.metadata.annotations).toEqual({ grafana_folder: 'Events' });
  });

  it('ships the alert rules as a PrometheusRule holding the rules file unchanged, with extra labels', () => {
    const objects = render({ metrics: { prometheusRule: { enabled: true, labels: { release: 'kube-prometheus' } } } });
    expect(validateObjects(objects)).toEqual([]);
    const rule = findObject(objects, 'PrometheusRule', 'test-dynamic-events');
    expect(rule.metadata.labels).toMatchObject({ release: 'kube-prometheus', 'app.kubernetes.io/instance': 'test' });
    expect(rule.spec).toEqual(parse(readFileSync(RULES_FILE, 'utf8')));
  });

  it('the ServiceMonitors name each job after its component, the job the dashboard and the rules select', () => {
    const objects = render({ metrics: { serviceMonitor: { enabled: true } } });
    for (const component of ['gateway', 'registry', 'media']) {
      expect(findObject(objects, 'ServiceMonitor', `test-dynamic-events-${component}`).spec).toMatchObject({ jobLabel: 'app.kubernetes.io/component' });
    }
  });

  it('ci/full-values.yaml switches both on, so CI lints and renders them', () => {
    const objects = renderChart([join(CHART_DIR, 'ci/full-values.yaml')]).objects;
    expect(() => findObject(objects, 'PrometheusRule', 'test-dynamic-events')).not.toThrow();
    expect(() => findObject(objects, 'ConfigMap', 'test-dynamic-events-dashboards')).not.toThrow();
  });
});
