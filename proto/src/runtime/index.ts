/**
 * The runtime every service process shares: gRPC servers, clients and lanes, health, the
 * environment loader and the shared variables, logging with the safe error serializer, the
 * metrics server and the process lifecycle. The wire contract itself is `@dynamic-events/proto`.
 */
export type { Interceptor } from '@grpc/grpc-js';
export { hostPort, localUrl } from './addresses.js';
export { AUTHORIZATION_KEY, type CallContext } from './call-context.js';
export { createCoalescer } from './coalescer.js';
export type { CoalescerTiming, ItemResult } from './coalescer.js';
export { defineEnv, integer, oneOf, required, text, withDefault } from './env-config.js';
export type { CrossChecks, EnvSchema, EnvValues, EnvVar, EnvVars, Environment } from './env-config.js';
export { renderEnvTable } from './env-docs.js';
export { ALLOWED_HOSTS, DATABASE_URL, DATA_DIR, DURATION, durationSeconds, OCCURRED_AT_MAX_SKEW, DRAIN_DELAY_MS, DYNAMIC_EVENTS_TOKEN, GRPC_HOST, HOST, LOG_LEVEL, MAX_IMAGE_BYTES, MEDIA_ADDR, MEDIA_GRPC_PORT, METRICS_HOST, PLATFORM_SEGMENT, PORT, PUBLIC_BASE_URL, REDIS_URL, REGISTRY_ADDR, REGISTRY_GRPC_PORT, REGISTRY_INTERNAL_TOKEN, SHUTDOWN_TIMEOUT_MS, connectable, metricsPort } from './env-vars.js';
export { callStream, callUnary, createGrpcClient } from './grpc-client.js';
export type { AsyncServiceImpl } from './grpc-handlers.js';
export { LIVENESS_SERVICE } from './grpc-health.js';
export { createLanePool } from './grpc-lanes-client.js';
export { createClientMetricsInterceptor } from './grpc-metrics.js';
export { createGrpcServer } from './grpc-server.js';
export type { GrpcServer } from './grpc-server.js';
export { createHealthChecker, waitUntilServing } from './health-client.js';
export { giveBuffersHeadroom } from './heap-headroom.js';
export { onShutdownSignal, runMain } from './lifecycle.js';
export { createLimiter } from './in-flight.js';
export type { Limiter, Release } from './in-flight.js';
export { createLogger } from './logger.js';
export type { Logger } from './logger.js';
export { collectAfterBursts } from './memory-return.js';
export { createMetricsServer, listenHttp } from './metrics-server.js';
export { pollUntil } from './poll.js';
export { registerReadinessMetric } from './readiness-metric.js';
export { MEDIA_PROTO, REGISTRY_PROTO, TOKENS_PROTO, WEBHOOKS_PROTO, addReflection } from './reflection.js';
export { LogSafeError } from './safe-error.js';
export { createStreamBudget } from './stream-budget.js';
export type { StreamBudget, StreamShare } from './stream-budget.js';
export { holdUntilTaken, roomFor } from './stream-room.js';
export type { Room } from './stream-room.js';
export { untilDrained } from './until-drained.js';
