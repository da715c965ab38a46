/** The JSON of devices, objects and event types: one presenter each, shared with the registry's webhook payloads. */
export { presentDevice, presentEventType, presentObject } from '@dynamic-events/proto';
