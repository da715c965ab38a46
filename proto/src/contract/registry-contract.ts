/**
 * The `registry` namespace of the package: the generated code of every .proto file of the package
 * dynamic_events.registry.v1 (one package, split over several files) as one module, so callers see
 * one contract whichever file a message lives in.
 */
export * from './gen/dynamic_events/registry/v1/registry.js';
export * from './gen/dynamic_events/registry/v1/events.js';
export * from './gen/dynamic_events/registry/v1/entities.js';
export * from './gen/dynamic_events/registry/v1/lists.js';
export * from './gen/dynamic_events/registry/v1/counts.js';
export * from './gen/dynamic_events/registry/v1/watch.js';
export * from './gen/dynamic_events/registry/v1/tokens.js';
export * from './gen/dynamic_events/registry/v1/webhooks.js';
// Every generated file exports these three; an explicit export settles which one `*` passes on
// (the package name and MessageFns are the same in each, the file name is the service's).
export { protobufFileName, protobufPackage } from './gen/dynamic_events/registry/v1/registry.js';
export type { MessageFns } from './gen/dynamic_events/registry/v1/events.js';
