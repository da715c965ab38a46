/** The contract package: generated gRPC code plus the helpers every service shares. */
// The generated registry code of every .proto file of its package, as one namespace.
export * as registry from './registry-contract.js';
// The generated media code with copy-free serializers for the image-carrying messages.
export * as media from './media-codec.js';
export type { Timestamp } from './gen/google/protobuf/timestamp.js';
// The writer the generated encoders write into: for encoders that reuse one (watch-encoding.ts).
export { BinaryWriter } from '@bufbuild/protobuf/wire';
export * from './app-error.js';
export * from './call-context.js';
export * from './grpc-errors.js';
export * from './grpc-server.js';
export * from './grpc-client.js';
export * from './grpc-metrics.js';
export * from './metrics-server.js';
export * from './lifecycle.js';
export * from './logger.js';
export * from './safe-error.js';
export * from './reflection.js';
export * from './timestamps.js';
export * from './health-client.js';
export * from './limits.js';
export * from './event-rules.js';
export * from './image-rules.js';
export * from './idempotency-key.js';
export * from './coalescer.js';
export type { Interceptor } from '@grpc/grpc-js';
export * from './outage.js';
export * from './http2-window.js';
export * from './heap-headroom.js';
export * from './addresses.js';
export * from './env-config.js';
export * from './env-docs.js';
export * from './env-vars.js';
export * from './poll.js';
export * from './service-names.js';
export * from './token-secret.js';
export * from './domain-patterns.js';
export * from './token-policy.js';
export * from './grpc-lanes-client.js';
