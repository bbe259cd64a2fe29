/**
 * The request target, parsed once.
 *
 * Every door that looks at where a request goes (the gateway's router, its hold decision, the
 * held request's `uri` that the page replays and what it forwards to an origin; each
 * connector's protection test) reads the one target `normalizeTarget` returns, so that no two
 * of them can disagree about which resource a request names. What cannot be read one way only
 * is refused. Web-standard APIs only: it runs on Node, Edge runtimes and Workers.
 *
 * The rules (RFC 9112 §3.2 for the forms, RFC 3986 §6.2.2 for the path):
 *
 * - Characters: only visible ASCII. Spaces, control characters and raw bytes above 0x7E are
 *   refused (Node's parser already refuses most; raw non-ASCII could be UTF-8 or Latin-1).
 * - Fragment: refused. A request target has no fragment; `#` is where a browser stops, and a
 *   server that cut there would route elsewhere than one that did not.
 * - Origin form (`/path?query`): the usual one.
 * - Absolute form (`http://host/path?query`, any case of `http` or `https`): servers must
 *   accept it; it is routed by its path and query, the host is checked for shape only (no
 *   `user@`, which RFC 9110 §4.2.4 calls an error). Every other scheme is refused.
 * - Asterisk form (`OPTIONS *`) and authority form (`CONNECT host:port`): refused; nothing
 *   here answers them.
 * - Percent-encoding in the path: a `%` must be followed by two hex digits, or the target is
 *   refused. An encoded `/` (`%2F`) or `\` (`%5C`), NUL or control character is refused as
 *   ambiguous (one server splits there, another does not). Unreserved characters
 *   (`A-Z a-z 0-9 - . _ ~`) are decoded; reserved characters keep the form they were sent in
 *   (`;` and `%3B` may mean different things to an origin); everything else is percent-encoded,
 *   hex in upper case. The decoded path must be UTF-8.
 * - Dot segments (`.`, `..`, `%2e` and `%2E` included) are resolved; `..` never climbs above
 *   the root.
 * - Doubled slashes are merged into one, as nginx's `merge_slashes` does.
 * - Backslashes are refused: some servers read them as `/`.
 * - A trailing slash is kept: `/dir/` and `/dir` may be different resources to an origin, and
 *   the browser resolves relative links against it.
 * - Letter case is kept: the path is case-sensitive. Tests that must not depend on case (the
 *   protection test in `protection.ts`) compare it case-insensitively themselves.
 * - The query is kept byte for byte (it may be any visible ASCII but `#`).
 *
 * The result is a fixed point: normalizing a normalized target gives it back unchanged.
 */

/** A request target the server can route: path and query, as routed, held and forwarded. */
export interface NormalizedTarget {
  readonly ok: true;
  /** Starts with `/`; no `//`, no `.` or `..` segment; canonical percent-encoding. */
  readonly path: string;
  /** The text after the first `?`, byte for byte; undefined when there is no `?`. */
  readonly query: string | undefined;
  /** `path`, then `?` and `query` when there is a query: what is routed, replayed and forwarded. */
  readonly target: string;
}

/** A request target that is refused, and why (a clause that completes "refused: …"). */
export interface RefusedTarget {
  readonly ok: false;
  readonly reason: string;
}

export type TargetResult = NormalizedTarget | RefusedTarget;

/** How a path spells each ASCII character: percent-encoded, or as it is (unreserved or reserved). */
const ENCODED = 0;
const UNRESERVED = 1;
/** Reserved characters a path may carry as they are (RFC 3986 pchar, plus `[` and `]` that browsers send). */
const RESERVED = 2;
const SPELLING = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') {
  SPELLING[char.charCodeAt(0)] = UNRESERVED;
}
for (const char of ":@!$&'()*+,;=[]") SPELLING[char.charCodeAt(0)] = RESERVED;
const HEX = /^[0-9A-Fa-f]{2}$/;
/** An absolute-form target: scheme, authority, then the rest (path and query). */
const ABSOLUTE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?]*)(.*)$/;
/** reg-name or IPv4 (unreserved, sub-delims, percent-escapes) or an IP literal, then an optional port. */
export const AUTHORITY = /^(?:(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Thrown inside the parser only: `normalizeTarget` turns it into a `RefusedTarget`. */
class Refusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Parses and normalizes a raw request target as the rules above say; never throws. */
export function normalizeTarget(raw: string): TargetResult {
  try {
    return normalize(raw);
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** The target as one string: path, then `?query` when there is a query. */
export function formatTarget(path: string, query: string | undefined): string {
  return query === undefined ? path : `${path}?${query}`;
}

function normalize(raw: string): NormalizedTarget {
  if (raw === '') throw new Refusal('it is empty');
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f) {
      throw new Refusal('it holds a space, a control character or a character outside ASCII');
    }
  }
  if (raw.includes('#')) throw new Refusal('a fragment (#…) has no place in a request target');
  const rest = raw.startsWith('/') ? raw : originFormOf(raw);
  const mark = rest.indexOf('?');
  const path = normalizePath(mark === -1 ? rest : rest.slice(0, mark));
  const search = mark === -1 ? undefined : rest.slice(mark + 1);
  return { ok: true, path, query: search, target: formatTarget(path, search) };
}

/** The path and query of an absolute-form target (`http://host/path?query` gives `/path?query`). */
function originFormOf(raw: string): string {
  if (raw === '*') throw new Refusal('the asterisk form (OPTIONS *) is not served');
  const match = ABSOLUTE.exec(raw);
  if (!match) throw new Refusal('it is neither a path starting with "/" nor an absolute http(s) URL');
  const [, scheme = '', authority = '', rest = ''] = match;
  const lower = scheme.toLowerCase();
  if (lower !== 'http' && lower !== 'https') throw new Refusal(`the ${lower} scheme is not served`);
  if (authority.includes('@')) throw new Refusal('user information (user@) has no place in an http(s) URL');
  if (!AUTHORITY.test(authority)) throw new Refusal('the host of the absolute URL is malformed');
  if (rest === '' || rest.startsWith('?')) return `/${rest}`;
  return rest;
}

/** Canonical segments, dot segments resolved, doubled slashes merged, the trailing slash kept. */
function normalizePath(raw: string): string {
  if (raw.includes('\\')) throw new Refusal('a backslash is ambiguous (some servers read it as "/")');
  const parts = raw.split('/');
  const segments: string[] = [];
  let trailingSlash = false;
  // parts[0] is the empty string before the leading "/".
  for (let i = 1; i < parts.length; i++) {
    const segment = canonicalSegment(parts[i] ?? '');
    const last = i === parts.length - 1;
    if (segment === '' || segment === '.' || segment === '..') {
      if (segment === '..') segments.pop();
      trailingSlash = last;
      continue;
    }
    segments.push(segment);
  }
  return `/${segments.join('/')}${trailingSlash && segments.length > 0 ? '/' : ''}`;
}

/** One path segment in its one canonical spelling. */
function canonicalSegment(raw: string): string {
  let out = '';
  let nonAscii = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] ?? '';
    if (char === '%') {
      const hex = raw.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new Refusal('it holds a malformed percent-escape ("%" not followed by two hex digits)');
      i += 2;
      const byte = parseInt(hex, 16);
      if (byte === 0x2f) throw new Refusal('an encoded slash (%2F) is ambiguous');
      if (byte === 0x5c) throw new Refusal('an encoded backslash (%5C) is ambiguous');
      if (byte < 0x20 || byte === 0x7f) throw new Refusal('it holds an encoded NUL or control character');
      if (byte < 0x80 && SPELLING[byte] === UNRESERVED) {
        out += String.fromCharCode(byte);
      } else {
        out += `%${hex.toUpperCase()}`;
        nonAscii ||= byte >= 0x80;
      }
    } else if (SPELLING[char.charCodeAt(0)] !== ENCODED) {
      out += char;
    } else {
      // Visible ASCII a path may not carry as it is (" < > ^ ` { | }): its one spelling is encoded.
      out += `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  if (nonAscii && !isUtf8(out)) throw new Refusal('the decoded path is not UTF-8');
  return out;
}

/** True when the bytes a canonical segment spells (escapes decoded) are valid UTF-8. */
function isUtf8(segment: string): boolean {
  try {
    utf8.decode(bytesOf(segment));
    return true;
  } catch {
    return false;
  }
}

/** The bytes a canonical (well-formed) segment spells, its percent-escapes decoded. */
function bytesOf(segment: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] === '%') {
      bytes.push(parseInt(segment.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(segment.charCodeAt(i));
    }
  }
  return Uint8Array.from(bytes);
}

/** A segment of a normalized path as text, its percent-escapes decoded (valid UTF-8 by construction). */
export function decodeSegment(segment: string): string {
  return segment.includes('%') ? utf8.decode(bytesOf(segment)) : segment;
}
