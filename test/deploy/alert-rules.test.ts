// The chart's alert rules (helm/dynamic-events/rules/, the file its PrometheusRule holds) checked by
// Debian's promtool: `check rules`, and `test rules` with the unit tests beside this file, each
// alert both firing and not firing. Every alert names its runbook section in the README.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_DIR } from '../support/chart-files.js';
import { prometheusTool } from '../support/prometheus-tools.js';
import { REPO_ROOT } from '../support/stack.js';

const PROMTOOL = prometheusTool('promtool');
const RULES_FILE = join(CHART_DIR, 'rules/dynamic-events.rules.yaml');
const TESTS_DIR = new URL('./alert-rules/', import.meta.url).pathname;
const TEST_FILES = readdirSync(TESTS_DIR).filter((f) => f.endsWith('.yaml')).sort().map((f) => join(TESTS_DIR, f));

interface Rule { alert?: string; record?: string; expr: string; annotations?: Record<string, string>; labels?: Record<string, string> }
const groups = (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups;
const alerts = groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);

interface AlertTest { alertname: string; exp_alerts: unknown[] }
const alertTests = TEST_FILES.flatMap((file) => (parse(readFileSync(file, 'utf8')) as { tests: { alert_rule_test?: AlertTest[] }[] }).tests.flatMap((t) => t.alert_rule_test ?? []));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

describe('the alert rules', () => {
  it('cover what the operations issue asks for', () => {
    expect([...new Set(alerts.map((a) => a.alert))].sort()).toEqual([
      'DynamicEventsEventStoreUnavailable',
      'DynamicEventsIngestErrorBudgetBurn',
      'DynamicEventsIngestLatencyBudgetBurn',
      'DynamicEventsNotReady',
      'DynamicEventsTokenCopyStale',
      'DynamicEventsWebhookBacklogOld',
      'DynamicEventsWriteQueueSaturated',
    ]);
  });

  it('each has a unit test that fires it and one where it stays silent', () => {
    for (const { alert } of alerts) {
      const cases = alertTests.filter((t) => t.alertname === alert);
      expect(cases.some((t) => t.exp_alerts.length > 0), `${alert} firing`).toBe(true);
      expect(cases.some((t) => t.exp_alerts.length === 0), `${alert} silent`).toBe(true);
    }
  });

  it('each names a runbook section of the README’s Operations, with a severity and a summary', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const operations = readme.slice(readme.indexOf('\n## Operations\n'), readme.indexOf('\n## ', readme.indexOf('\n## Operations\n') + 1));
    const anchors = new Set([...operations.matchAll(/^#{3,5} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
    for (const { alert, annotations = {}, labels = {} } of alerts) {
      expect(annotations.runbook_url, alert).toMatch(/^README\.md#/);
      expect([...anchors], alert).toContain(annotations.runbook_url!.slice('README.md#'.length));
      expect(['critical', 'warning'], alert).toContain(labels.severity);
      expect(annotations.summary, alert).toBeTruthy();
    }
  });
});

// promtool evaluates hours of synthetic series per test file: seconds each, more on a loaded machine.
describe.skipIf(!PROMTOOL)('promtool', { timeout: 120_000 }, () => {
  it('check rules passes', () => {
    expect(execFileSync(PROMTOOL!, ['check', 'rules', RULES_FILE], { encoding: 'utf8' })).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('test rules passes every unit test', () => {
    const run = spawnSync(PROMTOOL!, ['test', 'rules', ...TEST_FILES], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).not.toMatch(/FAILED/);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it('test rules fails when an expected alert does not fire (the tests can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'alert-rules-'));
    try {
      for (const file of TEST_FILES) {
        // The expected labels of the first firing case gain one the alert does not carry.
        const text = readFileSync(file, 'utf8').replace(/^(\s+- )\.\.\/.*rules\.yaml$/m, `$1${RULES_FILE}`).replace(/exp_labels: \{/, 'exp_labels: { never: there,');
        const copy = join(dir, basename(file));
        writeFileSync(copy, text);
        const run = spawnSync(PROMTOOL!, ['test', 'rules', copy], { encoding: 'utf8' });
        expect(run.stdout + run.stderr, file).toMatch(/FAILED:[\s\S]*never="there"/);
        expect(run.status, file).not.toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
