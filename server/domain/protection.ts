import { decodeSegment, normalizeTarget } from './request-target';

/**
 * True when `target` (a request target, as sent or normalized) is under one of `prefixes`
 * (see `protectionTest`). A target the server refuses counts as protected.
 */
export function isProtected(target: string, prefixes: readonly string[]): boolean {
  const result = normalizeTarget(target);
  return !result.ok || protectionTest(prefixes)(result.path);
}

/**
 * The protection test for `prefixes`, for normalized paths (`request-target.ts`): a path is
 * protected when it is one of the prefixes or below one, by whole segments, compared
 * case-insensitively and percent-decoded, so that an origin that ignores case (behind a
 * gateway) offers no way around. A path is also protected when it is below a prefix once its
 * path parameters are cut (`/checkout;jsessionid=1`, `/x/..;/checkout`), as Java servlet
 * containers read it. Either reading is enough: a path one origin might serve as protected
 * is held. Throws when a prefix is not a path the server would route.
 */
export function protectionTest(prefixes: readonly string[]): (path: string) => boolean {
  const protectedKeys = prefixes.map((prefix) => {
    const result = normalizeTarget(prefix);
    if (!result.ok || result.query !== undefined) {
      throw new Error(`PROTECT: "${prefix}" is not a path the server routes${result.ok ? '' : `: ${result.reason}`}.`);
    }
    return segmentKeys(result.path);
  });
  return (path) => {
    const keys = segmentKeys(path);
    const readings = [keys, withoutPathParameters(keys)];
    return readings.some((reading) => protectedKeys.some((prefix) => startsWith(reading, prefix)));
  };
}

/** The segments of a normalized path, decoded and lower-cased. */
function segmentKeys(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeSegment(segment).toLowerCase());
}

/** The segments once each loses its `;parameters`, dot segments that leaves resolved again. */
function withoutPathParameters(keys: readonly string[]): string[] {
  const resolved: string[] = [];
  for (const key of keys) {
    const name = key.split(';')[0] ?? '';
    if (name === '..') resolved.pop();
    else if (name !== '' && name !== '.') resolved.push(name);
  }
  return resolved;
}

function startsWith(keys: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= keys.length && prefix.every((key, i) => keys[i] === key);
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
