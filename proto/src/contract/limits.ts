/**
 * Documented input limits, shared by the gateway (HTTP validation) and the registry (which other
 * platform services call directly), so both reject the same input with the same rule.
 * Generous on purpose: they stop abuse, not real integrations.
 */
export const LIMITS = Object.freeze({
  /** device_name, object_id, object_domain, object_name, object_type, event_type, display_name. */
  nameMaxLength: 255,
  /** event_type.display_description. */
  descriptionMaxLength: 1024,
  /** Entries in event_additional_properties (base64_image included). */
  propertiesMaxCount: 256,
  propertyKeyMaxLength: 255,
  /** Any property value except base64_image, whose size MAX_IMAGE_BYTES governs. */
  propertyValueMaxLength: 16_384,
  /**
   * Entries in images and in video_clips of a stored event, over HTTP as over gRPC. A stored
   * base64_image's URL is one of the images: beside one, a caller sends one URL fewer.
   */
  urlsMaxCount: 64,
  urlMaxLength: 2048,
  /** Nesting depth of the JSON body; real payloads need 4. */
  jsonMaxDepth: 32,
  /**
   * Values in the JSON body (members and array elements, counted before parsing). The largest
   * valid event has about 700; without a bound, 1.2 M keys in a tolerated field cost 200 MiB to parse.
   */
  jsonMaxValues: 4096,
  /** Events in one RecordEvents call (one transaction). */
  batchMaxEvents: 500,
});

/** The reserved property whose value is a Base64 image; never stored as a property. */
export const BASE64_IMAGE_KEY = 'base64_image';

/** MAX_IMAGE_BYTES: default and upper bound, the same for the gateway and media (one owner). */
export const MAX_IMAGE_BYTES_DEFAULT = 10 * 1024 * 1024;
export const MAX_IMAGE_BYTES_LIMIT = 256 * 1024 * 1024;

/** Room for the rest of a StoreImage message around the image bytes: media's channel is MAX_IMAGE_BYTES plus this. */
export const IMAGE_ENVELOPE_BYTES = 1024 * 1024;

/** gRPC message size limit of our channels and servers unless a service raises it (grpc-js's own default). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Largest message on the registry's channels. One event within LIMITS can reach about 18 MB on the
 * wire (256 properties of 16,384 four-byte characters), far above grpc-js's 4 MiB default.
 */
export const REGISTRY_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Most a page of ListEvents holds, in bytes (estimated from the stored text, above the encoded
 * size): a page stops before its events would pass it, shorter than asked, with a next_page_token.
 * A page holds at least one event, and one accepted event is below REGISTRY_MAX_REQUEST_BYTES, so
 * even the budget plus one more event stays under REGISTRY_MAX_MESSAGE_BYTES.
 */
export const LIST_PAGE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Most a reply adds to its request per event: id, times, outcome, framing and the object's rel
 * (percent-encoded, up to three times the object id's bytes). A test checks it against the worst case.
 */
export const REPLY_OVERHEAD_PER_EVENT_BYTES = 16 * 1024;

/**
 * Largest request the registry accepts. A reply carries every event back, so it is larger than its
 * request: receiving less than the send limit guarantees that whatever was accepted (and committed)
 * can also be answered, instead of being committed and then failing (the caller retries: a duplicate).
 */
export const REGISTRY_MAX_REQUEST_BYTES = REGISTRY_MAX_MESSAGE_BYTES - LIMITS.batchMaxEvents * REPLY_OVERHEAD_PER_EVENT_BYTES;
