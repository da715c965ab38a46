/**
 * Metrics and logs of every service after real traffic through the all-in-one stack: the metric
 * families the operations issue names exist, count what happened and never carry a device name or
 * id; one request id ties the log lines of all three services together; secrets never reach a log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleEvent } from '../support/example.js';
import { samples as images } from '../support/images.js';
import { lintExposition, PROMTOOL, promtoolCheck } from '../support/metric-lint.js';
import { hasFamily, scrape, valueOf, type Sample } from '../support/prometheus.js';
import { openSse } from '../support/sse.js';
import { tempDir } from '../support/servers.js';
import { postJson, startStack, stopAllStacks, type Stack } from '../support/stack.js';

afterAll(stopAllStacks);

const TOKEN = 'metrics-test-token';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const REGISTRY = 'dynamic_events.registry.v1.RegistryService';
const MEDIA = 'dynamic_events.media.v1.MediaService';
const DEVICE = 'metrics-device-7f3a';
const TRACE_ID = 'trace-5d1c-from-caller';

let stack: Stack;
let dir: ReturnType<typeof tempDir>;
const scraped: Record<'gateway' | 'registry' | 'media', Sample[]> = { gateway: [], registry: [], media: [] };
const raw: string[] = [];

beforeAll(async () => {
  dir = tempDir('e2e-metrics');
  // debug: registry and media log every call (successes included) only at that level.
  stack = await startStack({ dataDir: dir.path, env: { DYNAMIC_EVENTS_TOKEN: TOKEN, LOG_LEVEL: 'debug' } });
  const url = `${stack.api}/dynamic-events`;
  // Two events for one new device/object/type (created, then reused), one with an image, and refusals.
  const first = await postJson(url, exampleEvent({ device: DEVICE, objectId: 'obj-9c1e' }), AUTH);
  const withImage = exampleEvent({ device: DEVICE, objectId: 'obj-9c1e' });
  (withImage.event.event_data.event_additional_properties as Record<string, string>).base64_image = images.png.bytes.toString('base64');
  const second = await postJson(url, withImage, { ...AUTH, 'X-Request-Id': TRACE_ID });
  expect(second.headers.get('x-request-id')).toBe(TRACE_ID);
  const svg = exampleEvent({ device: DEVICE });
  (svg.event.event_data.event_additional_properties as Record<string, string>).base64_image = Buffer.from('<svg/>').toString('base64');
  const refusedImage = await postJson(url, svg, AUTH);
  const missing = await postJson(url, { source: {} }, AUTH);
  const unauthorized = await postJson(url, exampleEvent());
  expect([first.status, second.status, refusedImage.status, missing.status, unauthorized.status]).toEqual([200, 200, 400, 400, 401]);

  // One open event stream, counted by the gateway's stream gauge at the scrape.
  const stream = await openSse(`${url}/stream`, AUTH);
  expect(stream.status).toBe(200);
  for (const name of ['gateway', 'registry', 'media'] as const) {
    raw.push(await (await fetch(stack.metrics[name])).text());
    scraped[name] = await scrape(stack.metrics[name]);
  }
  stream.close();
});

afterAll(async () => {
  const { code } = await stack.stop('SIGTERM');
  dir.remove();
  expect(code).toBe(0);
});

describe('gateway /metrics', () => {
  it('counts HTTP requests by route pattern and status class, with a duration histogram', () => {
    const g = scraped.gateway;
    const route = '/api/platform/dh/dynamic-events';
    expect(valueOf(g, 'http_requests_total', { method: 'POST', route, status_class: '2xx' })).toBe(2);
    expect(valueOf(g, 'http_requests_total', { method: 'POST', route, status_class: '4xx' })).toBe(3);
    expect(valueOf(g, 'http_request_duration_seconds_count', { method: 'POST', route })).toBe(5);
    expect(hasFamily(g, 'http_request_duration_seconds')).toBe(true);
  });

  it('counts auth failures and validation failures by rule', () => {
    const g = scraped.gateway;
    expect(valueOf(g, 'http_auth_failures_total', { reason: 'missing' })).toBe(1);
    expect(valueOf(g, 'http_validation_failures_total', { rule: 'required' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(g, 'http_validation_failures_total', { rule: 'format' })).toBe(1);
  });

  it('counts its gRPC client calls in the go-grpc-prometheus family', () => {
    const g = scraped.gateway;
    // Batches travel as messages on an open RecordEventsStream lane: one stream, one message each way per batch.
    const lane = { grpc_type: 'bidi_stream', grpc_service: REGISTRY, grpc_method: 'RecordEventsStream' };
    expect(valueOf(g, 'grpc_client_started_total', lane)).toBe(1);
    expect(valueOf(g, 'grpc_client_msg_sent_total', lane)).toBe(2);
    expect(valueOf(g, 'grpc_client_msg_received_total', lane)).toBe(2);
    // Images likewise, on a StoreImageStream lane: the stored PNG, then the refused SVG on the same
    // lane, which its refusal ended (InvalidArgument), as a unary StoreImage would have failed.
    const imageLane = { grpc_type: 'bidi_stream', grpc_service: MEDIA, grpc_method: 'StoreImageStream' };
    expect(valueOf(g, 'grpc_client_started_total', imageLane)).toBe(1);
    expect(valueOf(g, 'grpc_client_msg_sent_total', imageLane)).toBe(2);
    expect(valueOf(g, 'grpc_client_msg_received_total', imageLane)).toBe(1);
    expect(valueOf(g, 'grpc_client_handled_total', { ...imageLane, grpc_code: 'InvalidArgument' })).toBe(1);
  });

  it('times where a recorded event waits: before its RecordEvents batch leaves, and the batch until it is answered', () => {
    const g = scraped.gateway;
    // Two events recorded, one at a time: two waits, two batches.
    expect(valueOf(g, 'ingest_record_queue_seconds_count')).toBe(2);
    expect(valueOf(g, 'ingest_record_call_seconds_count')).toBe(2);
    // A committed batch took some time; waiting with a free slot took less than the answer.
    expect(valueOf(g, 'ingest_record_call_seconds_sum')).toBeGreaterThan(0);
    expect(valueOf(g, 'ingest_record_queue_seconds_sum')).toBeLessThan(valueOf(g, 'ingest_record_call_seconds_sum'));
  });
});

describe('registry /metrics', () => {
  it('counts gRPC server calls in the go-grpc-prometheus family', () => {
    const r = scraped.registry;
    const lane = { grpc_type: 'bidi_stream', grpc_service: REGISTRY, grpc_method: 'RecordEventsStream' };
    expect(valueOf(r, 'grpc_server_started_total', lane)).toBe(1);
    expect(valueOf(r, 'grpc_server_msg_received_total', lane)).toBe(2);
    expect(valueOf(r, 'grpc_server_msg_sent_total', lane)).toBe(2);
    // Open: a lane's call is handled when it ends, not per batch.
    expect(valueOf(r, 'grpc_server_handled_total', { ...lane, grpc_code: 'OK' })).toBe(0);
    // The launcher's and the gateway's readiness checks are gRPC calls too.
    expect(valueOf(r, 'grpc_server_handled_total', { grpc_service: 'grpc.health.v1.Health', grpc_method: 'Check' })).toBeGreaterThan(0);
  });

  it('counts entities created vs reused, events recorded, and lock outcomes and waits', () => {
    const r = scraped.registry;
    for (const kind of ['device', 'object', 'event_type']) {
      expect(valueOf(r, 'registry_entities_ensured_total', { kind, result: 'created' }), kind).toBe(1);
      expect(valueOf(r, 'registry_entities_ensured_total', { kind, result: 'reused' }), kind).toBe(1);
    }
    expect(valueOf(r, 'registry_events_recorded_total')).toBe(2);
    // First sightings take the lock (three keys on the first call); known entities skip it.
    expect(valueOf(r, 'registry_lock_outcomes_total', { outcome: 'acquired' })).toBeGreaterThanOrEqual(1);
    expect(hasFamily(r, 'registry_lock_wait_seconds')).toBe(true);
  });

  it('times where an event waits: for a write statement, and the statement until it committed', () => {
    const r = scraped.registry;
    expect(valueOf(r, 'registry_write_queue_seconds_count')).toBe(2);
    expect(valueOf(r, 'registry_write_statement_seconds_count')).toBe(2);
    expect(valueOf(r, 'registry_write_statement_seconds_sum')).toBeGreaterThan(0);
  });
});

describe('media /metrics', () => {
  it('counts images stored, bytes and refusals, and its gRPC server calls', () => {
    const m = scraped.media;
    expect(valueOf(m, 'media_images_stored_total', { result: 'created', format: 'png' })).toBe(1);
    expect(valueOf(m, 'media_bytes_stored_total')).toBe(images.png.bytes.length);
    expect(valueOf(m, 'media_image_rejections_total', { rule: 'format' })).toBe(1);
    const imageLane = { grpc_type: 'bidi_stream', grpc_service: MEDIA, grpc_method: 'StoreImageStream' };
    expect(valueOf(m, 'grpc_server_started_total', imageLane)).toBe(1);
    expect(valueOf(m, 'grpc_server_msg_received_total', imageLane)).toBe(2);
    expect(valueOf(m, 'grpc_server_msg_sent_total', imageLane)).toBe(1);
    expect(valueOf(m, 'grpc_server_handled_total', { ...imageLane, grpc_code: 'InvalidArgument' })).toBe(1);
    expect(valueOf(m, 'media_storage_up')).toBe(1);
  });
});

describe('every service', () => {
  it('says whether it is ready (the gateway /readyz, the others their gRPC health), and the registry whether its database answers', () => {
    for (const [name, samples] of Object.entries(scraped)) expect(valueOf(samples, 'service_ready'), name).toBe(1);
    expect(valueOf(scraped.registry, 'registry_database_up')).toBe(1);
  });

  it('exposes its write queue beside its bound, and the gateway its open event streams', () => {
    expect(hasFamily(scraped.gateway, 'gateway_ingest_queue_events')).toBe(true);
    expect(valueOf(scraped.gateway, 'gateway_ingest_queue_max_events')).toBe(10_000);
    expect(hasFamily(scraped.registry, 'registry_write_queue_events')).toBe(true);
    expect(valueOf(scraped.registry, 'registry_write_queue_max_events')).toBe(50_000);
    expect(valueOf(scraped.gateway, 'gateway_event_streams')).toBe(1);
  });

  it('exposes the default process metrics', () => {
    for (const [name, samples] of Object.entries(scraped)) {
      expect(hasFamily(samples, 'process_cpu_user_seconds_total'), name).toBe(true);
      expect(hasFamily(samples, 'nodejs_eventloop_lag_seconds'), name).toBe(true);
      expect(hasFamily(samples, 'process_resident_memory_bytes'), name).toBe(true);
    }
  });

  it('names every exposed family as Prometheus asks (promtool check metrics, and the same checks without it)', () => {
    for (const [index, text] of raw.entries()) {
      const name = ['gateway', 'registry', 'media'][index];
      expect(lintExposition(text), name).toEqual([]);
      if (PROMTOOL) expect(promtoolCheck(PROMTOOL, text), name).toEqual({ code: 0, output: '' });
    }
  });

  it('never puts a device name or object id in a label', () => {
    for (const text of raw) {
      expect(text).not.toContain(DEVICE);
      expect(text).not.toContain('obj-9c1e');
      expect(text).not.toContain(TOKEN);
    }
  });

  it('keeps /metrics off the public port, and the launcher lists every metrics URL', async () => {
    expect((await fetch(`${stack.baseUrl}/metrics`)).status).toBe(404);
    const started = stack
      .output()
      .split('\n')
      .filter((line) => line.includes('"all services started"'))
      .map((line) => JSON.parse(line) as { metrics?: Record<string, string> });
    expect(started).toHaveLength(1);
    expect(started[0]!.metrics).toEqual(stack.metrics);
  });
});

describe('logs', () => {
  const lines = () =>
    stack
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('carry the caller\'s X-Request-Id through gateway, media and registry', () => {
    const traced = lines().filter((l) => l.requestId === TRACE_ID);
    expect(traced.find((l) => l.service === 'ingest-gateway' && l.msg === 'request')).toMatchObject({
      method: 'POST',
      route: '/api/platform/dh/dynamic-events',
      status: 200,
      durationMs: expect.any(Number),
      level: 'info',
    });
    // One image stream carries many requests: each image carries its request id (StoreImageStreamRequest.request_id).
    expect(traced.find((l) => l.service === 'media-service')).toMatchObject({ grpcService: MEDIA, method: 'StoreImageStream', code: 'OK', durationMs: expect.any(Number) });
    // Events of several requests may share one RecordEvents call: the registry logs each event with its own request id.
    // (Before that, the gateway's identity check for an image may have read the object: a GetObject call line.)
    expect(traced.find((l) => l.service === 'registry-service' && l.msg === 'event recorded')).toMatchObject({ eventId: expect.any(String), level: 'debug' });
  });

  it('give every request an id, even without one from the caller', () => {
    const requests = lines().filter((l) => l.service === 'ingest-gateway' && l.msg === 'request' && l.route === '/api/platform/dh/dynamic-events');
    expect(requests).toHaveLength(5);
    for (const line of requests) expect(line.requestId).toEqual(expect.any(String));
    expect(new Set(requests.map((l) => l.requestId)).size).toBe(5);
  });

  it('never contain the token or image bytes', () => {
    expect(stack.output()).not.toContain(TOKEN);
    expect(stack.output()).not.toContain(images.png.bytes.toString('base64').slice(0, 40));
  });
});
