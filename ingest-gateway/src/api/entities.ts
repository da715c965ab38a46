import type { DeviceRecord, EventTypeRecord, ObjectRecord } from '../model.js';

/** GET …/dh/devices/{device_name}. */
export function presentDevice(device: DeviceRecord) {
  return { device_name: device.deviceName, kind: device.kind, created_at: device.createdAt, updated_at: device.updatedAt, created_by_token_id: device.createdByTokenId };
}

/** GET …/dh/objects/{object_domain}.{object_id}. */
export function presentObject(object: ObjectRecord) {
  return {
    id: object.id,
    object_id: object.objectId,
    object_domain: object.objectDomain,
    object_name: object.objectName,
    object_type: object.objectType,
    device_name: object.deviceName,
    created_at: object.createdAt,
    updated_at: object.updatedAt,
    created_by_token_id: object.createdByTokenId,
  };
}

/** GET …/dh/event-types/{domain}/{event_type}. */
export function presentEventType(type: EventTypeRecord) {
  return {
    domain: type.domain,
    event_type: type.eventType,
    display_name: type.displayName,
    display_description: type.displayDescription,
    created_at: type.createdAt,
    updated_at: type.updatedAt,
    created_by_token_id: type.createdByTokenId,
  };
}
