/**
 * A queue identifier, the spec's "uuid": 1 to 100 letters, digits, `-` or `_`. A waiting-room
 * server issues RFC 4122 UUIDs, which fit; any server may issue other ids of this shape. Every
 * one is safe as it is in a URL path segment, a channel name and a store key, and nothing else
 * is a uuid: what does not match is refused before it is looked up.
 */
export const UUID_PATTERN = /^[\w-]{1,100}$/;

/** True when `value` is a uuid (`UUID_PATTERN`). */
export const isUuid = (value: unknown): value is string => typeof value == 'string' && UUID_PATTERN.test(value);
