/**
 * The contract every service shares: the generated gRPC code, the rules callers of it apply alike
 * (limits, event, image and token rules, timestamps, idempotency keys) and the one error model.
 * The shared process runtime (gRPC servers and clients, configuration, logging, metrics) is
 * `@dynamic-events/proto/runtime`.
 */
// The generated registry code of every .proto file of its package, as one namespace.
export * as registry from './registry-contract.js';
// The generated media code with copy-free serializers for the image-carrying messages.
export * as media from './media-codec.js';
export type { Timestamp } from './gen/google/protobuf/timestamp.js';
// The writer the generated encoders write into, for encoders that reuse one.
export { BinaryWriter } from '@bufbuild/protobuf/wire';
export { AppError, INTERNAL_MESSAGE, httpStatusOf, invalidArgument } from './app-error.js';
export { checkDomainPattern, domainAllowed, DOMAIN_PATTERNS_MAX_COUNT, patternWithin } from './domain-patterns.js';
export { checkCharacters, checkEventCharacters, checkIdentityText, checkObjectIdOutsideDomain, checkUtf8, fullObjectId, identityConflict, isBlank, propertyField, ruleError, textProblem } from './event-rules.js';
export { fromItemStatus, fromServiceError, statusName, toItemStatus } from './grpc-errors.js';
export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, checkIdempotencyKey } from './idempotency-key.js';
export { UNSUPPORTED_IMAGE_MESSAGE, imageRuleError } from './image-rules.js';
export { BASE64_IMAGE_KEY, IMAGE_ENVELOPE_BYTES, LIMITS, LIST_PAGE_MAX_BYTES, REGISTRY_MAX_MESSAGE_BYTES, REGISTRY_MAX_REQUEST_BYTES, REPLY_OVERHEAD_PER_EVENT_BYTES } from './limits.js';
export { createOccurredAtRule, OCCURRED_AT_FIELD } from './occurred-at.js';
export type { OccurredAtRule } from './occurred-at.js';
export { isNetworkFailure, timedOut, unavailable } from './outage.js';
export { escapeUnsafe, quoteName } from './quote.js';
export { presentDevice, presentEvent, presentEventType, presentObject } from './resource-json.js';
export type { DeviceSource, EventJson, EventSource, EventTypeSource, ObjectSource } from './resource-json.js';
export { MEDIA_SERVICE_NAME, REGISTRY_SERVICE_NAME } from './service-names.js';
export { formatTimestamp, isStorableMicros, microsFromTimestamp, parseRfc3339, TIMESTAMP_RANGE_TEXT, timestampFromMicros } from './timestamps.js';
export { checkPolicyNumbers, fromProtoPolicy, policyFromJson, policyToJson, rateProblem, toProtoPolicy } from './token-policy.js';
export type { PolicyJson, TokenPolicy, TokenRate } from './token-policy.js';
export { hashTokenSecret, newTokenSecret, tokenPrefixOf } from './token-secret.js';
