import type { ServiceDefinition } from '@grpc/grpc-js';
import { MediaServiceService } from './gen/dynamic_events/media/v1/media.js';
import { RegistryServiceService } from './gen/dynamic_events/registry/v1/registry.js';

/** The full gRPC name of a generated service ("dynamic_events.media.v1.MediaService"), read from its method paths. */
export function serviceNameOf(definition: ServiceDefinition): string {
  const method = Object.values(definition)[0];
  if (!method) throw new Error('a gRPC service without methods has no name to read');
  return method.path.slice(1, method.path.lastIndexOf('/'));
}

/** The registry's gRPC service name, as health checks, logs and metrics label it. */
export const REGISTRY_SERVICE_NAME = serviceNameOf(RegistryServiceService);

/** The media service's gRPC service name. */
export const MEDIA_SERVICE_NAME = serviceNameOf(MediaServiceService);
