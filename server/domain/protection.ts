import { isProtected as isProtectedBy, prefixTest } from '@waiting-room/connector/core/protection';
import { normalizeTarget } from './request-target';

/**
 * The protection test is the doors' one (`@waiting-room/connector/core/protection`): whole
 * segments, case-insensitively and percent-decoded, also without `;parameters` (Java servlet
 * containers) and with a format suffix read off the prefix's last segment (`/tickets.json`).
 */
export function isProtected(target: string, prefixes: readonly string[]): boolean {
  return isProtectedBy(target, prefixes);
}

/** The protection test for PROTECT's `prefixes`; throws when a prefix is not a path the server routes. */
export function protectionTest(prefixes: readonly string[]): (path: string) => boolean {
  return prefixTest(prefixes, 'PROTECT');
}

/**
 * The test for BYPASS's `prefixes`: a path goes by only when every reading of it is under one
 * (`/api/..;/checkout` is not, for a Java origin routes it to `/checkout`).
 */
export function bypassTest(prefixes: readonly string[]): (path: string) => boolean {
  return prefixTest(prefixes, 'BYPASS', 'every');
}

/**
 * The waiting room's own routes: the page's assets, queue_request and queue_info, channel
 * authorization, the admin API and console, the metrics, the error sink, the events API, the
 * realtime socket, and an event's draw and its verify page.
 */
const OWN_PREFIXES = ['/assets', '/queue', '/pusher/auth', '/admin', '/metrics', '/apps', '/app'];
const SINK = /^\/api\/[^/]+\/envelope\/?$/;
/** An event's public draw and the page that verifies it (`EVENT_ROUTES`): only these, so that a site keeps its own `/events`. */
const DRAW = /^\/events\/[^/]+\/(draw|verify)$/;

/**
 * True when `target` (a request target, as sent or normalized) is one of the waiting room's
 * own routes, which are never held whatever PROTECT says (`PROTECT=/` would otherwise hold the
 * waiting page's own script, its polls and the admin API). They are matched exactly, case
 * included, on the normalized path: the one the router routes. A refused target is none.
 */
export function isWaitingRoomRoute(target: string): boolean {
  const result = normalizeTarget(target);
  return result.ok && isOwnPath(result.path);
}

/** True when the normalized `path` is one of the waiting room's own (see `isWaitingRoomRoute`). */
export function isOwnPath(path: string): boolean {
  return OWN_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) || SINK.test(path) || DRAW.test(path);
}
