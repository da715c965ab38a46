import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

/** REGISTRY_INTERNAL_TOKEN is required: every environment below has it. */
const CREDENTIAL = 'config-test-internal-credential-0123456789';
const load = (env: Record<string, string>) => loadConfig({ REGISTRY_INTERNAL_TOKEN: CREDENTIAL, ...env });

describe('ALLOWED_HOSTS', () => {
  it('reads names separated by commas (port-free, lower case), `*` as any Host, and refuses anything else naming the variable', () => {
    expect(load({ ALLOWED_HOSTS: 'API.example.com, localhost,::1,[::2]' }).allowedHosts).toEqual(new Set(['api.example.com', 'localhost', '::1', '::2']));
    expect(load({ ALLOWED_HOSTS: '*' }).allowedHosts).toBeUndefined();
    for (const bad of ['a b', 'a,,b', 'https://a.example', 'a/b']) expect(() => load({ ALLOWED_HOSTS: bad }), bad).toThrow(/ALLOWED_HOSTS/);
  });
});

describe('loadConfig', () => {
  it('has working defaults with an empty environment', () => {
    expect(load({})).toEqual({
      logLevel: 'info',
      port: 8080,
      host: '0.0.0.0',
      platformSegment: 'platform',
      publicBaseUrl: 'http://localhost:8080',
      allowedHosts: undefined,
      dynamicEventsToken: undefined,
      adminToken: undefined,
      // This package's console build, wherever the package lies.
      consoleDir: fileURLToPath(new URL('../console/dist', import.meta.url)),
      tokenSyncIntervalMs: 1000,
      redisUrl: undefined,
      registryAddr: '127.0.0.1:50051',
      mediaAddr: '127.0.0.1:50052',
      maxBodyBytes: 16_777_216,
      batchMaxEvents: 1000,
      occurredAtMaxSkewSeconds: 300,
      maxImageBytes: 10_485_760,
      maxInflightBodyBytes: 33_554_432,
      requestTimeoutMs: 60_000,
      headersTimeoutMs: 10_000,
      grpcDeadlineMs: 10_000,
      recordConcurrency: 8,
      ingestQueueMaxEvents: 10_000,
      ingestQueueMaxBytes: 67_108_864,
      shutdownTimeoutMs: 8000,
      drainDelayMs: 0,
      maxStreams: 1000,
      maxStreamsPerToken: 200,
      maxStreamsPerClient: 100,
      keepAliveTimeoutMs: 65_000,
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      registryInternalToken: CREDENTIAL,
    });
  });

  it('treats empty values as unset', () => {
    expect(load({ DYNAMIC_EVENTS_TOKEN: '', PORT: '' })).toMatchObject({ dynamicEventsToken: undefined, port: 8080 });
  });
});

describe('loadConfig: every variable', () => {
  it('reads every variable and returns a frozen object', () => {
    const config = load({
      LOG_LEVEL: 'debug',
      PORT: '9090',
      HOST: '127.0.0.1',
      PLATFORM_SEGMENT: 'acme',
      PUBLIC_BASE_URL: 'https://events.example.com/',
      DYNAMIC_EVENTS_TOKEN: 'tok',
      ADMIN_TOKEN: 'a'.repeat(32),
      TOKEN_SYNC_INTERVAL_MS: '2000',
      REGISTRY_ADDR: 'registry:6000',
      MEDIA_ADDR: 'media:6001',
      MAX_BODY_BYTES: '1000',
      MAX_IMAGE_BYTES: '500',
      MAX_INFLIGHT_BODY_BYTES: '4000',
      HTTP_REQUEST_TIMEOUT_MS: '30000',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      GRPC_DEADLINE_MS: '250',
      SHUTDOWN_TIMEOUT_MS: '3000',
      DRAIN_DELAY_MS: '5000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '120000',
      METRICS_PORT: '9100',
      METRICS_HOST: '127.0.0.1',
    });
    expect(config).toMatchObject({
      logLevel: 'debug',
      port: 9090,
      host: '127.0.0.1',
      platformSegment: 'acme',
      publicBaseUrl: 'https://events.example.com',
      dynamicEventsToken: 'tok',
      adminToken: 'a'.repeat(32),
      tokenSyncIntervalMs: 2000,
      registryAddr: 'registry:6000',
      mediaAddr: 'media:6001',
      maxBodyBytes: 1000,
      maxImageBytes: 500,
      maxInflightBodyBytes: 4000,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 5000,
      grpcDeadlineMs: 250,
      shutdownTimeoutMs: 3000,
      drainDelayMs: 5000,
      keepAliveTimeoutMs: 120_000,
      metricsPort: 9100,
      metricsHost: '127.0.0.1',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('derives the addresses from the gRPC ports and the public URL from PORT', () => {
    const config = load({ REGISTRY_GRPC_PORT: '7001', MEDIA_GRPC_PORT: '7002', PORT: '3000' });
    expect(config).toMatchObject({ registryAddr: '127.0.0.1:7001', mediaAddr: '127.0.0.1:7002', publicBaseUrl: 'http://localhost:3000' });
  });
});

describe('loadConfig: refusals', () => {
  it('refuses a body budget below one body and a header timeout above the request timeout', () => {
    expect(() => load({ MAX_BODY_BYTES: '2000', MAX_INFLIGHT_BODY_BYTES: '1000' })).toThrow(
      'invalid configuration: MAX_INFLIGHT_BODY_BYTES must be at least MAX_BODY_BYTES (a largest body must be able to pass)',
    );
    expect(() => load({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000' })).toThrow(
      'invalid configuration: HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
    );
  });

  it('names every bad variable in one error, never echoing the token', () => {
    const attempt = () =>
      load({
        PORT: '80a',
        MAX_BODY_BYTES: '0',
        MAX_IMAGE_BYTES: '-5',
        GRPC_DEADLINE_MS: '1.5',
        LOG_LEVEL: 'loud',
        PLATFORM_SEGMENT: 'a/b',
        PUBLIC_BASE_URL: 'ftp://x',
        DYNAMIC_EVENTS_TOKEN: 'has a space',
        ADMIN_TOKEN: 'short-admin-secret',
        TOKEN_SYNC_INTERVAL_MS: '10000',
        REGISTRY_ADDR: 'no-port',
        MEDIA_ADDR: 'host:',
        REGISTRY_GRPC_PORT: '70000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '0',
        METRICS_PORT: '65536',
      });
    expect(attempt).toThrow(/^invalid configuration: /);
    const message = (() => {
      try {
        attempt();
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    for (const name of ['PORT', 'MAX_BODY_BYTES', 'MAX_IMAGE_BYTES', 'GRPC_DEADLINE_MS', 'LOG_LEVEL', 'PLATFORM_SEGMENT', 'PUBLIC_BASE_URL', 'DYNAMIC_EVENTS_TOKEN', 'ADMIN_TOKEN', 'TOKEN_SYNC_INTERVAL_MS', 'REGISTRY_ADDR', 'MEDIA_ADDR', 'REGISTRY_GRPC_PORT', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'METRICS_PORT']) {
      expect(message).toContain(`${name} `);
    }
    expect(message).not.toContain('has a space');
    expect(message).not.toContain('short-admin-secret');
    expect(message).toContain('MAX_BODY_BYTES must be an integer from 1 to 268435456');
  });

  it('rejects "." and ".." as the platform segment', () => {
    expect(() => load({ PLATFORM_SEGMENT: '..' })).toThrow('PLATFORM_SEGMENT');
  });
});

describe('REGISTRY_INTERNAL_TOKEN', () => {
  it('is required, at least 32 visible ASCII characters, and never echoed', () => {
    const other = { };
    expect(() => loadConfig(other)).toThrow(/REGISTRY_INTERNAL_TOKEN is required/);
    for (const bad of ['short-0123456789', `${CREDENTIAL} with spaces`]) {
      let message = '';
      try {
        loadConfig({ ...other, REGISTRY_INTERNAL_TOKEN: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('REGISTRY_INTERNAL_TOKEN must be at least 32 visible ASCII characters');
      expect(message).not.toContain(bad);
    }
    expect(loadConfig({ ...other, REGISTRY_INTERNAL_TOKEN: CREDENTIAL }).registryInternalToken).toBe(CREDENTIAL);
  });
});
