import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/** Root of the .proto sources, shipped with this package because reflection reads them at runtime. */
const PROTO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Serves gRPC server reflection for a server's .proto files, so grpcurl and friends work without local protos. */
export function addReflection(server: Server, protoFiles: string | string[]): void {
  const definition = loadSync(protoFiles, { includeDirs: [PROTO_ROOT], keepCase: true });
  new ReflectionService(definition).addToServer(server);
}

export const REGISTRY_PROTO = 'dynamic_events/registry/v1/registry.proto';
export const TOKENS_PROTO = 'dynamic_events/registry/v1/tokens.proto';
export const WEBHOOKS_PROTO = 'dynamic_events/registry/v1/webhooks.proto';
export const MEDIA_PROTO = 'dynamic_events/media/v1/media.proto';
