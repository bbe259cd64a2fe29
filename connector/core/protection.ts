import { decodeSegment, normalizeTarget } from './target.js';

/**
 * The protection test for path prefixes, shared by every door.
 *
 * A normalized path (`target.ts`) is under a prefix when its segments start with the prefix's,
 * compared whole, percent-decoded and case-insensitively (`/checkout` holds `/Checkout/pay`,
 * not `/checkouts`), so that an origin that ignores case offers no way around. A path is read
 * in more than one way, as the sites behind a door may route it:
 *
 * - as it is;
 * - each segment without its `;parameters`, dot segments that leaves resolved again
 *   (`/checkout;jsessionid=1`, `/x/..;/checkout`), as Java servlet containers route;
 * - the segment that ends the prefix with a format suffix (`/tickets.json`, `/tickets.html`),
 *   as Rails routes `/tickets(.:format)` to the `/tickets` action, and Laravel and Django apps
 *   often do.
 *
 * A protected path is one that any reading puts under a prefix: a path one site might serve as
 * protected is held. A bypass (the gateway's BYPASS) is the other way round: only a path that
 * every reading puts under a bypass prefix goes by, so that `/api/..;/checkout` is no way past.
 */
export type PrefixTest = (path: string) => boolean;

/** `any`: a reading is enough (protection); `every`: all readings must agree (a bypass). */
export type Readings = 'any' | 'every';

/**
 * The test for `prefixes` (paths the door routes, each starting with `/`). Throws a TypeError
 * naming `setting` (PROTECT, protect…) when a prefix is not such a path.
 */
export function prefixTest(prefixes: readonly string[], setting: string, readings: Readings = 'any'): PrefixTest {
  const wanted = prefixes.map((prefix) => {
    if (typeof prefix !== 'string' || !prefix.startsWith('/')) throw new TypeError(`${setting}: "${String(prefix)}" must be a path starting with /.`);
    const result = normalizeTarget(prefix);
    if (!result.ok || result.query !== undefined) {
      throw new TypeError(`${setting}: "${prefix}" is not a path the server routes${result.ok ? '' : `: ${result.reason}`}.`);
    }
    return segmentKeys(result.path);
  });
  return (path) => {
    const keys = segmentKeys(path);
    const plain = [keys, withoutPathParameters(keys)];
    const under = (prefix: readonly string[]) => plain.map((reading) => startsWith(reading, prefix) || withFormat(reading, prefix));
    if (readings === 'any') return wanted.some((prefix) => under(prefix).some(Boolean));
    return wanted.some((prefix) => plain.every((reading) => startsWith(reading, prefix)));
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

/** Under `prefix` once the segment that ends it loses a format suffix (`tickets.json` read as `tickets`). */
function withFormat(keys: readonly string[], prefix: readonly string[]): boolean {
  const last = prefix.length - 1;
  if (last < 0 || keys.length <= last) return false;
  const key = keys[last] ?? '';
  const stem = prefix[last] ?? '';
  return key.length > stem.length + 1 && key.startsWith(`${stem}.`) && prefix.every((wantedKey, i) => i === last || keys[i] === wantedKey);
}

/**
 * True when `target` (a request target, as sent or normalized) is under one of `prefixes`. A
 * target no door can read one way only (`target.ts` refuses it) counts as protected.
 */
export function isProtected(target: string, prefixes: readonly string[]): boolean {
  const result = normalizeTarget(target);
  return !result.ok || prefixTest(prefixes, 'protect')(result.path);
}
