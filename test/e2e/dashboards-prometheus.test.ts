/**
 * The chart's Grafana dashboard against a real Prometheus (Debian's package): the stack under load
 * (ingest with images, refused images, refusals for a missing token and a token's domains, an open SSE stream, a
 * webhook), scraped every second on loopback with the jobs the ServiceMonitors name; every panel's
 * expression, as committed in the chart, evaluated through Prometheus' HTTP API returns data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR } from '../support/chart-files.js';
import { exampleEvent } from '../support/example.js';
import { samples as images } from '../support/images.js';
import { prometheusTool } from '../support/prometheus-tools.js';
import { freePort, tempDir } from '../support/servers.js';
import { openSse, type SseStream } from '../support/sse.js';
import { postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const PROMETHEUS = prometheusTool('prometheus');
const TOKEN = 'dashboards-test-token';
const ADMIN = 'dashboards-admin-token-dashboards-admin';
const LOAD_MS = 8_000;

/** Every panel's expressions in the shipped dashboard, with their panel's title. */
function panelExpressions(): { title: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(join(CHART_DIR, 'dashboards/dynamic-events.json'), 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));
}

/** Grafana's variables as a query of the whole range with the namespace variable at All. */
const asQuery = (expr: string): string => expr.replaceAll('$namespace', '.*').replaceAll('$__rate_interval', '20s');

let stack: Stack;
let prometheus: ChildProcess | undefined;
let promUrl = '';
let receiver: Receiver;
let stream: SseStream;
const dir = tempDir('e2e-dashboards');

async function query(expr: string): Promise<unknown[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data!.result;
}

async function startPrometheus(): Promise<void> {
  const port = await freePort();
  const job = (name: string, url: string) => `  - job_name: ${name}\n    static_configs: [{ targets: ['${new URL(url).host}'] }]\n`;
  // Scrape targets only: no remote write, no alerting, nothing off loopback.
  const config = `global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }\nscrape_configs:\n${job('ingest-gateway', stack.metrics.gateway)}${job('registry-service', stack.metrics.registry)}${job('media-service', stack.metrics.media)}${job('webhook-delivery', stack.metrics.delivery)}`;
  writeFileSync(join(dir.path, 'prometheus.yml'), config);
  prometheus = spawn(PROMETHEUS!, [`--config.file=${join(dir.path, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir.path, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: 'ignore' });
  promUrl = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 250))) {
    const up = await query('up == 1').catch(() => []);
    if (up.length === 4) return;
    if (Date.now() > deadline) throw new Error('Prometheus did not scrape the four services within 20 s');
  }
}

/** Ingest with images and refusals from `workers` concurrent clients until `ms` have passed. */
async function load(ms: number, workers: number, refusingToken: string): Promise<void> {
  const url = `${stack.api}/dynamic-events`;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const image = images.png.bytes.toString('base64');
  const svg = Buffer.from('<svg/>').toString('base64');
  const end = Date.now() + ms;
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    for (let n = 0; Date.now() < end; n++) {
      const event = exampleEvent({ device: `dash-${w}-${n % 7}`, objectId: `o-${n % 11}` });
      // Every tenth carries an image, every tenth another one media refuses (an SVG).
      if (n % 10 === 0) (event.event.event_data.event_additional_properties as Record<string, string>).base64_image = image;
      if (n % 10 === 5) (event.event.event_data.event_additional_properties as Record<string, string>).base64_image = svg;
      await postJson(url, event, auth);
      if (n % 5 === 0) await postJson(url, event);
      if (n % 5 === 1) await postJson(url, event, { Authorization: `Bearer ${refusingToken}` });
    }
  }));
}

beforeAll(async () => {
  if (!PROMETHEUS) return;
  receiver = await startReceiver();
  stack = await startStack({ dataDir: dir.path, env: { DYNAMIC_EVENTS_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  const admin = { Authorization: `Bearer ${ADMIN}` };
  expect((await postJson(`${stack.api}/settings/dynamic-events/webhooks`, { url: receiver.url }, admin)).status).toBe(201);
  const created = await postJson(`${stack.api}/settings/dynamic-events/tokens`, { name: 'other-domains', policy: { domains: ['other.*'] } }, admin);
  expect(created.status).toBe(201);
  const refusingToken = (created.body as { token: string }).token;
  stream = await openSse(`${stack.api}/dynamic-events/stream`, { Authorization: `Bearer ${TOKEN}` });
  expect(stream.status).toBe(200);
  await startPrometheus();
  await load(LOAD_MS, 8, refusingToken);
  // Two more scrapes after the load, so every rate has its last samples.
  await new Promise((r) => setTimeout(r, 2_500));
}, 90_000);

afterAll(async () => {
  stream?.close();
  prometheus?.kill('SIGTERM');
  await stopAllStacks();
  await receiver?.close();
  dir.remove();
});

describe.skipIf(!PROMETHEUS)('the Grafana dashboard against a real Prometheus scraping the stack under load', () => {
  it('has a panel for each thing the operations issue names', () => {
    const titles = new Set(panelExpressions().map((p) => p.title));
    for (const title of ['Ingest rate by status', 'Ingest latency', 'Events and first sightings', 'Images stored', 'Queue depths', 'Watch and SSE streams', 'Webhook deliveries', 'Webhook backlog', 'Token refusals', 'CPU', 'Resident memory', 'Garbage collection']) {
      expect(titles).toContain(title);
    }
  });

  it('every panel expression returns data', async () => {
    const empty: string[] = [];
    for (const { title, expr } of panelExpressions()) {
      if ((await query(asQuery(expr))).length === 0) empty.push(`${title}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });

  it('the ingest panel counts what the load sent, by status (the test can fail: a wrong label returns nothing)', async () => {
    const byStatus = (await query(asQuery(panelExpressions()[0]!.expr))) as { metric: { status_class: string } }[];
    expect(byStatus.map((r) => r.metric.status_class).sort()).toEqual(expect.arrayContaining(['2xx', '4xx']));
    expect(await query(asQuery(panelExpressions()[0]!.expr.replace('ingest-gateway', 'no-such-job')))).toEqual([]);
  });
});
