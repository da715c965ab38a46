import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const MIB = 1024 * 1024;

describe('loadConfig', () => {
  it('runs with no environment at all: filesystem storage under ./.data/media and documented defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      logLevel: 'info',
      grpcHost: '0.0.0.0',
      grpcPort: 50052,
      shutdownTimeoutMs: 8000,
      drainDelayMs: 0,
      metricsHost: '0.0.0.0',
      metricsPort: 9466,
      storage: { kind: 'filesystem', dir: '.data/media' },
      maxImageBytes: 10 * MIB,
      maxImagePixels: 100_000_000,
      grpcMaxMessageBytes: 11 * MIB,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.storage)).toBe(true);
  });

  it('reads every variable and treats empty values as unset', () => {
    const config = loadConfig({
      LOG_LEVEL: 'debug',
      GRPC_HOST: '127.0.0.1',
      MEDIA_GRPC_PORT: '6000',
      SHUTDOWN_TIMEOUT_MS: '2500',
      DATA_DIR: '/var/lib/events',
      MAX_IMAGE_BYTES: String(2 * MIB),
      MAX_IMAGE_PIXELS: '5000',
      S3_ENDPOINT: '',
      DRAIN_DELAY_MS: '5000',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: '9100',
      UNRELATED: 'ignored',
    });
    expect(config).toMatchObject({
      logLevel: 'debug',
      drainDelayMs: 5000,
      metricsHost: '127.0.0.1',
      metricsPort: 9100,
      grpcHost: '127.0.0.1',
      grpcPort: 6000,
      shutdownTimeoutMs: 2500,
      storage: { kind: 'filesystem', dir: '/var/lib/events/media' },
      maxImageBytes: 2 * MIB,
      maxImagePixels: 5000,
      grpcMaxMessageBytes: 3 * MIB,
    });
  });

  it.each([
    ['http://minio:9000', { endPoint: 'minio', port: 9000, useSSL: false }],
    ['https://s3.eu-west-1.amazonaws.com', { endPoint: 's3.eu-west-1.amazonaws.com', port: 443, useSSL: true }],
    ['http://[::1]:9000/', { endPoint: '::1', port: 9000, useSSL: false }],
    ['http://10.0.0.5', { endPoint: '10.0.0.5', port: 80, useSSL: false }],
  ])('chooses S3 when S3_ENDPOINT=%s', (endpoint, expected) => {
    const config = loadConfig({ S3_ENDPOINT: endpoint, S3_ACCESS_KEY: 'ak', S3_SECRET_KEY: 'sk', S3_BUCKET: 'images', S3_REGION: 'eu-west-1' });
    expect(config.storage).toEqual({ kind: 's3', accessKey: 'ak', secretKey: 'sk', bucket: 'images', region: 'eu-west-1', ...expected });
  });
});

describe('loadConfig: refusals', () => {
  it('names every bad variable in one error and never echoes a value', () => {
    let message = '';
    try {
      loadConfig({
        LOG_LEVEL: 'loud',
        GRPC_HOST: 'a b',
        MEDIA_GRPC_PORT: '70000',
        SHUTDOWN_TIMEOUT_MS: '-1',
        MAX_IMAGE_BYTES: 'ten',
        MAX_IMAGE_PIXELS: '0',
        S3_ENDPOINT: 'http://minio:9000/some/path',
        S3_SECRET_KEY: 'hunter2-secret',
        S3_BUCKET: 'Bad_Bucket',
        S3_REGION: 'EU WEST',
        METRICS_HOST: 'a b',
        DRAIN_DELAY_MS: '-5',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of ['LOG_LEVEL', 'GRPC_HOST', 'MEDIA_GRPC_PORT', 'SHUTDOWN_TIMEOUT_MS', 'MAX_IMAGE_BYTES', 'MAX_IMAGE_PIXELS', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_BUCKET', 'S3_REGION', 'METRICS_HOST', 'DRAIN_DELAY_MS']) {
      expect(message).toContain(`${name} `);
    }
    expect(message).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
    expect(message).toContain('S3_ACCESS_KEY is required when S3_ENDPOINT is set');
    expect(message).not.toContain('hunter2');
  });

  it('rejects an endpoint the URL parser refuses even though it looks right', () => {
    expect(() => loadConfig({ S3_ENDPOINT: 'http://minio:99999', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' })).toThrow(/S3_ENDPOINT must be the http\(s\) URL/);
  });
});
