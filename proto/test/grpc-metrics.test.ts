import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  AppError,
  media,
} from '../src/contract/index.js';
import {
  callStream,
  callUnary,
  createClientMetricsInterceptor,
  createGrpcClient,
  createGrpcServer,
  createMetricsServer,
  type GrpcServer,
} from '../src/runtime/index.js';
import {
  grpcCodeLabel,
} from '../src/runtime/grpc-metrics.js';
import {
  type MetricsServer,
} from '../src/runtime/metrics-server.js';
import { lintExposition } from '../../test/support/metric-lint.js';

const logger = pino({ level: 'silent' });
const SERVICE = 'dynamic_events.media.v1.MediaService';

/** Reads one sample's value from a registry (0 when absent). */
async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name.replace(/_count$/, ''));
  const data = await metric?.get();
  const wanted = name.endsWith('_count') ? name : undefined;
  const hit = data?.values.find(
    (v) => (wanted === undefined || (v as { metricName?: string }).metricName === wanted) && Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return hit?.value ?? 0;
}

describe('gRPC metrics (go-grpc-prometheus family) over a real server and client', () => {
  const serverRegistry = new Registry();
  const clientRegistry = new Registry();
  let server: GrpcServer;
  let client: media.MediaServiceClient;
  let hang: () => void = () => {};
  /** The hanging call's signal: aborted once the server saw the caller give up. */
  let hangSignal: AbortSignal | undefined;

  beforeAll(async () => {
    server = createGrpcServer({ logger, metricsRegistry: serverRegistry });
    server.addService<media.MediaServiceServer>(media.MediaServiceService, {
      storeImageStream: () => Promise.reject(new Error('not in this test')),
      async storeImage(request, ctx) {
        if (request.data.toString() === 'bad') throw new AppError('INVALID_ARGUMENT', 'not an image', { field: 'data', rule: 'format' });
        if (request.data.toString() === 'hang') {
          hangSignal = ctx.signal;
          await new Promise<void>((resolve) => (hang = resolve));
        }
        return { key: 'k', url: 'u', contentType: 'image/png', sizeBytes: '1', width: 1, height: 1, created: true };
      },
      async *getImage() {
        for (let i = 0; i < 3; i++) yield { contentType: 'image/png', sizeBytes: '3', chunk: Buffer.from('x') };
      },
    });
    const port = await server.listen('127.0.0.1:0');
    server.setServing(true);
    client = createGrpcClient(media.MediaServiceClient, `127.0.0.1:${port}`, { interceptors: [createClientMetricsInterceptor(clientRegistry)] });
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
  });

  it('counts started, handled by grpc-go code name, latency and messages on both sides', async () => {
    await callUnary(client.storeImage.bind(client), { data: Buffer.from('png') }, { deadlineMs: 2000 });
    await callUnary(client.storeImage.bind(client), { data: Buffer.from('bad') }, { deadlineMs: 2000 }).catch(() => undefined);
    for await (const chunk of callStream(client.getImage.bind(client), { key: 'k' }, { deadlineMs: 2000 })) expect(chunk.chunk.length).toBe(1);

    const unary = { grpc_type: 'unary', grpc_service: SERVICE, grpc_method: 'StoreImage' };
    const stream = { grpc_type: 'server_stream', grpc_service: SERVICE, grpc_method: 'GetImage' };
    for (const [side, registry] of [
      ['server', serverRegistry],
      ['client', clientRegistry],
    ] as const) {
      expect(await value(registry, `grpc_${side}_started_total`, unary), side).toBe(2);
      expect(await value(registry, `grpc_${side}_handled_total`, { ...unary, grpc_code: 'OK' }), side).toBe(1);
      expect(await value(registry, `grpc_${side}_handled_total`, { ...unary, grpc_code: 'InvalidArgument' }), side).toBe(1);
      expect(await value(registry, `grpc_${side}_handling_seconds_count`, unary), side).toBe(2);
      expect(await value(registry, `grpc_${side}_handled_total`, { ...stream, grpc_code: 'OK' }), side).toBe(1);
    }
    // Three streamed messages went out of the server and into the client.
    expect(await value(serverRegistry, 'grpc_server_msg_sent_total', stream)).toBe(3);
    expect(await value(clientRegistry, 'grpc_client_msg_received_total', stream)).toBe(3);
    expect(await value(serverRegistry, 'grpc_server_msg_received_total', unary)).toBe(2);
  });

  it('counts a call the client gave up on as Canceled / DeadlineExceeded, once', async () => {
    const unary = { grpc_type: 'unary', grpc_service: SERVICE, grpc_method: 'StoreImage' };
    await callUnary(client.storeImage.bind(client), { data: Buffer.from('hang') }, { deadlineMs: 100 }).catch(() => undefined);
    // Released only once the server saw the caller give up (polled, not a fixed wait).
    await expect.poll(() => hangSignal?.aborted, { timeout: 10_000 }).toBe(true);
    hang();
    expect(await value(clientRegistry, 'grpc_client_handled_total', { ...unary, grpc_code: 'DeadlineExceeded' })).toBe(1);
    await expect.poll(() => value(serverRegistry, 'grpc_server_handled_total', { ...unary, grpc_code: 'Canceled' }), { timeout: 10_000 }).toBe(1);
    expect(await value(serverRegistry, 'grpc_server_handling_seconds_count', unary)).toBe(3);
    // Once: the handler's late answer after the release is not counted again.
    await new Promise((r) => setTimeout(r, 50));
    expect(await value(serverRegistry, 'grpc_server_handling_seconds_count', unary)).toBe(3);
  });

  it('spells codes as grpc-go does', () => {
    expect([0, 1, 3, 4, 14, 16].map(grpcCodeLabel)).toEqual(['OK', 'Canceled', 'InvalidArgument', 'DeadlineExceeded', 'Unavailable', 'Unauthenticated']);
    expect(grpcCodeLabel(42)).toBe('Code(42)');
  });
});

describe('metrics server', () => {
  let metrics: MetricsServer;
  let base: string;

  beforeAll(async () => {
    metrics = createMetricsServer(logger);
    base = `http://127.0.0.1:${await metrics.listen(0, '127.0.0.1')}`;
  });
  afterAll(() => metrics.close());

  it('serves the text format with the default process metrics at GET /metrics', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // The handle, request and resource totals are gauges named like counters: only their labelled gauges stay.
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
    expect(lintExposition(text)).toEqual([]);
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
  });

  it('answers JSON errors elsewhere', async () => {
    const missing = await fetch(`${base}/other`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no route for /other: metrics are at /metrics' });
    const post = await fetch(`${base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('closes promptly even with a scraper holding a keep-alive connection', async () => {
    const other = createMetricsServer(logger);
    const port = await other.listen(0, '127.0.0.1');
    await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // The scraper's connection would otherwise stay until the keep-alive timeout (65 s): closed well
    // before it, close() cut the connection.
    const closed = await Promise.race([other.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000))]);
    expect(closed).toBe('closed');
  });
});
