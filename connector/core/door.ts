import type { Pass } from '../pass.js';
import { clientOf, type Client, type HeaderOf } from './client.js';
import { readCookie, setCookie } from './cookies.js';
import type { PrefixTest } from './protection.js';
import { AUTHORITY, normalizeTarget, type NormalizedTarget } from './target.js';
import { visitorOf, type Visitor } from './visitor.js';

/**
 * The decision every door makes, in one place: the gateway, and each connector (Express,
 * Fastify, Next.js, any runtime with fetch's Request). Pure and framework-free, on Web-standard
 * APIs only. A door hands it the request as its framework routes it (the raw request target, the
 * method, the headers), its traits, and later the pass check's result; it answers *site* (not
 * protected, or admitted), *wait* (a browser, or an API client), or *refused*, and the cookies
 * to set. Nothing here reads a URL rebuilt from `Host` or forwarded headers to decide: those
 * only make the address a visitor is sent back to, and a malformed one is refused.
 */

/** The query parameter the waiting room hands a fresh pass back in, taken off the address at once. */
export const PASS_PARAMETER = 'waiting_room_pass';
/** The cookie that carries the pass on the site. */
export const PASS_COOKIE = 'waiting_room_pass';
/** The cookie naming this browser to the waiting room: a pass admits only the browser it was given for. */
export const VISITOR_COOKIE = 'waiting_room_visitor';
/** How long the visitor cookie lasts: longer than any wait. */
export const VISITOR_COOKIE_SECONDS = 7 * 24 * 3600;

/** A request as the door's framework routes it. */
export interface DoorRequest {
  readonly method: string;
  /**
   * The request target as routed: the raw request-line target (`req.url` in Node's http,
   * Express's `req.originalUrl`, Fastify's `request.raw.url`; origin or absolute form), or,
   * for runtimes that give only a URL (fetch's Request, Next.js), its path and query.
   */
  readonly target: string;
  /** A request header by its lower-case name. */
  readonly header: HeaderOf;
  /** Whether a body came, when the runtime knows (a fetch Request); else read from Content-Length and Transfer-Encoding. */
  readonly hasBody?: boolean;
  /**
   * The site's scheme and host as the framework sees them (`request.protocol`, `Host`), used
   * only for the address a waiting visitor comes back to. A connector gives it; the gateway,
   * which sends nobody elsewhere, does not.
   */
  readonly site?: { readonly protocol: string; readonly host: string };
}

/** What differs between doors, and so the decision with it. */
export interface DoorTraits {
  /**
   * True for the gateway: it holds a protected request, its body included, while the visitor
   * waits on its page, and replays it; so it takes only the methods it can replay (`HELD_METHODS`;
   * others get 405). False for a connector: it runs inside the site and holds nothing; it sends
   * the visitor to wait at the waiting room (a browser by a redirect, which a body does not
   * survive; an API client with a held answer), whatever the method.
   */
  readonly holdsRequests: boolean;
}

export const GATEWAY = { holdsRequests: true } as const satisfies DoorTraits;
export const CONNECTOR = { holdsRequests: false } as const satisfies DoorTraits;

/** The methods the gateway holds and replays. */
export const HELD_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A 4xx the door answers itself: the site's handler does not run. */
export interface Refusal {
  readonly kind: 'refused';
  readonly status: 400 | 405;
  readonly code: 'bad_request_target' | 'bad_host' | 'method_not_allowed';
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Not protected, or a CORS preflight: the site answers. */
export interface Open {
  readonly kind: 'open';
  readonly why: 'not-protected' | 'preflight';
}

/** A request under a protected prefix at the gateway: admitted or held by its own session and line. */
export interface ProtectedRequest {
  readonly kind: 'protected';
  readonly target: NormalizedTarget;
  readonly client: Client;
}

/** A request under a protected prefix at a connector: it needs a pass, given to this browser. */
export interface PassRequest extends ProtectedRequest {
  /** The browser's visitor id: its cookie's when well formed, else a fresh one. */
  readonly visitor: Visitor;
  /** The pass to check, and where it came: handed back in the address, or the pass cookie. */
  readonly credential?: { readonly token: string; readonly from: 'address' | 'cookie' };
  /** The address the visitor asked for, without a handed-back pass: absolute when the request named its site. */
  readonly address: string;
  readonly secure: boolean;
}

/** What a door reads of a request before any pass is checked: a door that holds requests gets a `ProtectedRequest`, a connector a `PassRequest`. */
export type Reading<Door extends DoorTraits = DoorTraits> = Open | Refusal | (Door['holdsRequests'] extends true ? ProtectedRequest : PassRequest);

/**
 * Reads `request`: refused when its target cannot be read one way only (target.ts); open when
 * no prefix protects it (`protects`, a `prefixTest`) or it is a CORS preflight; else protected,
 * with the client's kind and, for a connector, the visitor and the pass to check.
 */
export function readRequest<Door extends DoorTraits>(request: DoorRequest, protects: PrefixTest, door: Door): Reading<Door>;
export function readRequest(request: DoorRequest, protects: PrefixTest, door: DoorTraits): Open | Refusal | ProtectedRequest | PassRequest {
  const target = normalizeTarget(request.target);
  if (!target.ok) return refusal(400, 'bad_request_target', `The request target is refused: ${target.reason}.`);
  if (!protects(target.path)) return { kind: 'open', why: 'not-protected' };
  if (isPreflight(request)) return { kind: 'open', why: 'preflight' };
  const client = clientOf(request.header);
  if (door.holdsRequests) {
    if (HELD_METHODS.includes(request.method)) return { kind: 'protected', target, client };
    return refusal(405, 'method_not_allowed', `${request.method} is not allowed at a protected path.`, { allow: HELD_METHODS.join(', ') });
  }
  let origin = '';
  let secure = false;
  if (request.site !== undefined) {
    const protocol = request.site.protocol.toLowerCase();
    const host = request.site.host;
    if ((protocol !== 'http' && protocol !== 'https') || !AUTHORITY.test(host)) {
      return refusal(400, 'bad_host', 'The Host header (or the protocol a proxy forwarded) is not a host name: there is no address to come back to.');
    }
    origin = `${protocol}://${host}`;
    secure = protocol === 'https';
  }
  const cookies = request.header('cookie');
  const { back, handedBack } = withoutPass(request.target.startsWith('/') ? request.target : target.target);
  const passCookie = readCookie(cookies, PASS_COOKIE);
  const credential =
    handedBack !== undefined ? { token: handedBack, from: 'address' as const } : passCookie ? { token: passCookie, from: 'cookie' as const } : undefined;
  const visitor = visitorOf(readCookie(cookies, VISITOR_COOKIE));
  return { kind: 'protected', target, client, visitor, credential, address: origin + back, secure };
}

/**
 * A CORS preflight: `OPTIONS` with `Access-Control-Request-Method` and an `Origin`, and no body.
 * It asks the site for headers only and goes through; anything else sent with `OPTIONS` (a body,
 * no Origin) is an ordinary request, protected like any other.
 */
export function isPreflight(request: Pick<DoorRequest, 'method' | 'header' | 'hasBody'>): boolean {
  return request.method === 'OPTIONS' && !!request.header('access-control-request-method') && !!request.header('origin') && !hasBody(request);
}

/** Whether a body came: the runtime says, or the headers that frame one (RFC 9112 §6.3). */
export function hasBody(request: Pick<DoorRequest, 'header' | 'hasBody'>): boolean {
  if (request.hasBody !== undefined) return request.hasBody;
  if (request.header('transfer-encoding')) return true;
  const length = request.header('content-length');
  return length !== null && length !== undefined && !/^\s*0*\s*$/.test(length);
}

/** What the door does with a request: the decision, once the pass is checked. */
export type Decision =
  /** The site answers: not protected, a preflight, or admitted (`pass`). */
  | { readonly kind: 'site'; readonly pass?: Pass }
  | Refusal
  /** Back from the waiting room with a valid pass: it becomes a cookie, and leaves the address. */
  | { readonly kind: 'back'; readonly location: string; readonly cookies: readonly string[] }
  /** Sent to wait: a browser to the waiting room, an API client with a held answer. */
  | { readonly kind: 'wait'; readonly client: Client; readonly address: string; readonly visitor: string; readonly cookies: readonly string[] };

/**
 * The connector's decision for a protected request, given the pass check's result: `pass` is
 * what `reading.credential` verified as (signed for this room, unexpired, given to
 * `reading.visitor`, not revoked), or undefined. `now` is in ms.
 */
export function decideProtected(reading: PassRequest, pass: Pass | undefined, now: number): Decision {
  const { credential, visitor, secure, address } = reading;
  if (pass !== undefined && pass.visitor === visitor.id && credential !== undefined) {
    if (credential.from === 'cookie') return { kind: 'site', pass };
    // The pass becomes a cookie and leaves the address: neither bookmarked, shared nor sent on as a referrer.
    const maxAgeSeconds = pass.expiresAt - Math.floor(now / 1000);
    return { kind: 'back', location: address, cookies: [setCookie(PASS_COOKIE, credential.token, { maxAgeSeconds, secure })] };
  }
  const cookies = visitor.fresh ? [setCookie(VISITOR_COOKIE, visitor.id, { maxAgeSeconds: VISITOR_COOKIE_SECONDS, secure })] : [];
  return { kind: 'wait', client: reading.client, address, visitor: visitor.id, cookies };
}

function refusal(status: 400 | 405, code: Refusal['code'], message: string, headers: Record<string, string> = {}): Refusal {
  return { kind: 'refused', status, code, message, headers };
}

/** The target without the pass handed back in its query, and that pass. */
function withoutPass(target: string): { readonly back: string; readonly handedBack: string | undefined } {
  const mark = target.indexOf('?');
  if (mark === -1) return { back: target, handedBack: undefined };
  let handedBack: string | undefined;
  const kept = target
    .slice(mark + 1)
    .split('&')
    .filter((part) => {
      const at = part.indexOf('=');
      const name = at === -1 ? part : part.slice(0, at);
      if (name !== PASS_PARAMETER) return true;
      handedBack ??= at === -1 ? '' : part.slice(at + 1);
      return false;
    });
  const path = target.slice(0, mark);
  return { back: kept.length > 0 ? `${path}?${kept.join('&')}` : path, handedBack: handedBack || undefined };
}
