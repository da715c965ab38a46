/** The event resource's JSON: one presenter, shared with the registry's webhook payloads. */
export { presentEvent, type EventJson } from '@dynamic-events/proto';
