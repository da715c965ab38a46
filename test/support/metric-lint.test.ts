/**
 * The metric-naming lint finds each problem promtool finds, and passes a clean exposition; where
 * promtool is installed, both agree on every case.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { lintExposition, PROMTOOL, promtoolCheck } from './metric-lint.js';

const family = (name: string, type: string, samples: string[], help = 'What it counts.') =>
  [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples].join('\n');

const CLEAN = [
  family('app_requests_total', 'counter', ['app_requests_total{route="/x",status_class="2xx"} 3']),
  family('app_queue_depth', 'gauge', ['app_queue_depth 2']),
  family('app_wait_seconds', 'histogram', ['app_wait_seconds_bucket{le="0.1"} 1', 'app_wait_seconds_bucket{le="+Inf"} 1', 'app_wait_seconds_sum 0.05', 'app_wait_seconds_count 1']),
  family('app_last_run_timestamp_seconds', 'gauge', ['app_last_run_timestamp_seconds 1700000000']),
].join('\n');

const BROKEN: [string, string, RegExp][] = [
  ['a gauge named like a counter', family('app_handles_total', 'gauge', ['app_handles_total 1']), /non-counter metrics should not have "_total"/],
  ['a counter without _total', family('app_requests', 'counter', ['app_requests 1']), /counter metrics should have "_total"/],
  ['no HELP text', ['# TYPE app_up gauge', 'app_up 1'].join('\n'), /no help text/],
  ['an empty HELP text', family('app_up', 'gauge', ['app_up 1'], ''), /no help text/],
  ['a gauge ending in _count', family('app_items_count', 'gauge', ['app_items_count 1']), /should not have "_count"/],
  ['a gauge ending in _bucket', family('app_bucket', 'gauge', ['app_bucket 1']), /should not have "_bucket"/],
  ['an le label off a histogram', family('app_items', 'gauge', ['app_items{le="1"} 1']), /should not have "le" label/],
  ['a quantile label off a summary', family('app_items', 'gauge', ['app_items{quantile="0.5"} 1']), /should not have "quantile" label/],
  ['a counter ending in _timestamp_seconds', family('app_timestamp_seconds', 'counter', ['app_timestamp_seconds 1']), /_timestamp_seconds/],
  ['a non-base unit', family('app_wait_milliseconds', 'gauge', ['app_wait_milliseconds 1']), /base unit instead of "milliseconds"/],
  ['an abbreviated unit', family('app_wait_ms', 'gauge', ['app_wait_ms 1']), /abbreviated units/],
  ['the type in the name', family('app_requests_gauge', 'gauge', ['app_requests_gauge 1']), /should not include type 'gauge'/],
  ['a colon', family('app:requests_total', 'counter', ['app:requests_total 1']), /should not contain ':'/],
  ['a camelCase name', family('app_queueDepth', 'gauge', ['app_queueDepth 1']), /'snake_case' not 'camelCase'/],
  ['a camelCase label', family('app_up', 'gauge', ['app_up{hostName="a"} 1']), /label names should be written in 'snake_case'/],
  ['a family declared twice', `${family('app_up', 'gauge', ['app_up 1'])}\n${family('app_up', 'gauge', ['app_up 1'])}`, /second (HELP|TYPE) line/],
  ['a sample of no family', `${family('app_up', 'gauge', ['app_up 1'])}\napp_other 1`, /sample of no declared family/],
  [
    'a family split by another',
    [family('app_a', 'gauge', ['app_a{x="1"} 1']), family('app_b', 'gauge', ['app_b 1']), 'app_a{x="2"} 1'].join('\n'),
    /again after another family/,
  ],
];

describe('metric naming lint', () => {
  it('passes a clean exposition', () => {
    expect(lintExposition(`${CLEAN}\n`)).toEqual([]);
  });

  it.each(BROKEN)('finds %s', (_, text, problem) => {
    const found = lintExposition(`${text}\n`);
    expect(found.some((line) => problem.test(line)), found.join('\n')).toBe(true);
  });

  it("finds prom-client's default gauges named like counters", async () => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    expect(lintExposition(await registry.metrics())).toEqual(
      expect.arrayContaining(['nodejs_active_handles_total: non-counter metrics should not have "_total" suffix']),
    );
  });

  it.runIf(PROMTOOL)('agrees with promtool on every case', () => {
    expect(promtoolCheck(PROMTOOL!, `${CLEAN}\n`)).toMatchObject({ code: 0 });
    // promtool stops at the first parse error and lints only what parses: compare exit codes only.
    for (const [what, text] of BROKEN) expect(promtoolCheck(PROMTOOL!, `${text}\n`).code, what).not.toBe(0);
  });
});
