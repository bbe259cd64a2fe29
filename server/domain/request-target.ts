/**
 * The request target, parsed once: the one normalization every door shares (the gateway's
 * router and hold decision, and each connector), kept in the connector's core.
 */
export { decodeSegment, formatTarget, normalizeTarget } from '@waiting-room/connector/core/target';
export type { NormalizedTarget, RefusedTarget, TargetResult } from '@waiting-room/connector/core/target';
