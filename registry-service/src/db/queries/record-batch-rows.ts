/** The rows one RecordEvent(s) statement writes beside its events (record-events.ts). */

/** A device to ensure, and the token whose event creates it if it is new. */
export interface NewDeviceRow {
  name: string;
  tokenId: string | undefined;
}

export interface NewObjectRow {
  /** Full identifier "{object_domain}.{object_id}". */
  id: string;
  objectDomain: string;
  objectId: string;
  objectName: string;
  objectType: string;
  deviceName: string;
  /** The token whose event creates it, if it is new. */
  tokenId: string | undefined;
}

export interface NewEventTypeRow {
  domain: string;
  eventType: string;
  displayName: string;
  displayDescription: string;
  tokenId: string | undefined;
}

/** An Idempotency-Key stored with the event it recorded. */
export interface NewKeyRow {
  scope: string;
  key: string;
  requestHash: string;
  eventId: string;
}

/** The write statement's input: each list sorted (lock order), the events as one JSON text (eventsJsonText). */
export interface BatchInput {
  devices: NewDeviceRow[];
  objects: NewObjectRow[];
  types: NewEventTypeRow[];
  eventsJson: string;
  keys: NewKeyRow[];
}
