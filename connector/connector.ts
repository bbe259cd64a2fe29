import { cookie, readCookie } from './cookies.js';
import { PASS_SECRET_MIN_LENGTH, verifyPass, type Pass } from './pass.js';
import { protectionTest } from './protect.js';
import { Revocations, type RevocationFeedOptions } from './revocations.js';
import { VerifiedPasses } from './verified-passes.js';

/** The query parameter the waiting room hands a fresh pass back in, taken off the address at once. */
export const PASS_PARAMETER = 'waiting_room_pass';
/** The cookie that carries the pass on the site. */
export const PASS_COOKIE = 'waiting_room_pass';
/** The cookie naming this browser to the waiting room: a pass admits only the browser it was given for. */
export const VISITOR_COOKIE = 'waiting_room_visitor';

/** How long the visitor cookie lasts: longer than any wait. */
const VISITOR_COOKIE_SECONDS = 7 * 24 * 3600;
/** Held API clients are told to ask again after this long. */
const RETRY_AFTER_SECONDS = 10;

export interface ConnectorOptions extends RevocationFeedOptions {
  /** The waiting room's public address, e.g. `https://queue.example.com`. */
  readonly waitingRoom: string;
  /** The room (a name in the waiting room's ROOMS, or `default`) this site's visitors wait in. */
  readonly room: string;
  /** The secret shared with the waiting room (its PASS_SECRET): at least 32 characters. */
  readonly secret: string;
  /** Path prefixes that need a pass, matched by whole segments, case-insensitively; default: every path. */
  readonly protect?: readonly string[];
  /** The status held API clients get: 503 (the default), or 200, 202 or 429. */
  readonly queueingStatusCode?: 200 | 202 | 429 | 503;
  /** The clock, in ms since the epoch; `Date.now` by default. */
  readonly now?: () => number;
}

/** What the connector needs of a request, whatever the framework. */
export interface ConnectorRequest {
  readonly method: string;
  /** The address the visitor asked for, absolute (`https://shop.example/checkout?x=1`). */
  readonly url: string;
  /** A request header by its lower-case name. */
  header(name: string): string | null | undefined;
}

/** An answer the connector sends instead of the site: a redirect, or a held API client's. */
export interface ConnectorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Set-Cookie values. */
  readonly cookies: readonly string[];
  readonly body?: string;
}

export type Decision =
  /** Not a protected path: the site answers. */
  | { readonly kind: 'open' }
  /** A protected path and a valid pass: the site answers. */
  | { readonly kind: 'admitted'; readonly pass: Pass }
  /** The connector answers: to the waiting room, or back to the address without its pass. */
  | { readonly kind: 'answer'; readonly answer: ConnectorAnswer };

export interface Connector {
  /** What to do with a request: let it through, or answer it. */
  decide(request: ConnectorRequest): Promise<Decision>;
  /** The request's valid pass, given for this browser; undefined when it has none. */
  passOf(request: ConnectorRequest): Promise<Pass | undefined>;
  /**
   * Ends the admission the request's pass gives (a finished checkout), so that the next visitor
   * in line goes in at once: asks the waiting room, and returns the Set-Cookie values that take
   * the pass off this browser. `revoked` says whether the waiting room had it admitted.
   */
  revoke(request: ConnectorRequest): Promise<{ readonly revoked: boolean; readonly cookies: readonly string[] }>;
}

/** What an admitted request carries, as `request.waitingRoom`. */
export interface Admission {
  readonly pass: Pass;
  /** Ends the visitor's admission (a finished checkout): the next in line goes in at once. */
  revoke(): Promise<boolean>;
}

/** The connector: a pass checked on each protected request, with no call to the waiting room. */
export function createConnector(options: ConnectorOptions): Connector {
  const base = waitingRoomBase(options.waitingRoom);
  if (!/^[a-z0-9-]{1,32}$/.test(options.room)) throw new TypeError(`room: "${options.room}" is not a room name (lower-case letters, digits, dashes).`);
  if (typeof options.secret !== 'string' || options.secret.length < PASS_SECRET_MIN_LENGTH) {
    throw new TypeError(`secret: the waiting room's PASS_SECRET, at least ${PASS_SECRET_MIN_LENGTH} characters.`);
  }
  const { room, secret } = options;
  const isProtected = protectionTest(options.protect ?? ['/']);
  const now = options.now ?? Date.now;
  const status = options.queueingStatusCode ?? 503;
  const verified = new VerifiedPasses();
  const revocations = new Revocations({ ...options, waitingRoom: base, now });

  /** The pass `token` is, signed for this room, unexpired and given to `visitor`. */
  const check = async (token: string | null | undefined, visitor: string | undefined): Promise<Pass | undefined> => {
    if (!token || visitor === undefined) return undefined;
    const at = now();
    let pass = verified.get(token, at);
    if (pass === undefined) {
      pass = await verifyPass(token, secret, room, at);
      if (pass !== undefined) verified.add(token, pass);
    }
    if (pass?.visitor !== visitor) return undefined;
    // A pass revoked here or, within the bound, anywhere else (revocations.ts) admits nobody.
    const refused = revocations.refuses(pass);
    return (typeof refused === 'boolean' ? refused : await refused) ? undefined : pass;
  };

  const passOf = (request: ConnectorRequest) => {
    const cookies = request.header('cookie');
    return check(readCookie(cookies, PASS_COOKIE), readCookie(cookies, VISITOR_COOKIE));
  };

  return {
    passOf,

    async decide(request) {
      const url = new URL(request.url);
      if (!isProtected(url.pathname)) return { kind: 'open' };
      const secure = url.protocol === 'https:';
      const cookies = request.header('cookie');
      const known = readCookie(cookies, VISITOR_COOKIE);
      const handedBack = url.searchParams.get(PASS_PARAMETER);
      if (handedBack !== null) {
        // Back from the waiting room: the pass becomes a cookie and leaves the address, so that
        // it is neither bookmarked nor shared nor sent on as a referrer.
        url.searchParams.delete(PASS_PARAMETER);
        const pass = await check(handedBack, known);
        if (pass) {
          const maxAgeSeconds = pass.expiresAt - Math.floor(now() / 1000);
          return redirect(url.href, [cookie(PASS_COOKIE, handedBack, { maxAgeSeconds, secure })]);
        }
      } else {
        const pass = await check(readCookie(cookies, PASS_COOKIE), known);
        if (pass) return { kind: 'admitted', pass };
      }
      const visitor = known ?? newVisitorId();
      const set = known === undefined ? [cookie(VISITOR_COOKIE, visitor, { maxAgeSeconds: VISITOR_COOKIE_SECONDS, secure })] : [];
      const enter = `${base}/queue/enter/${room}?target=${encodeURIComponent(url.href)}&visitor=${visitor}`;
      if (!isApiClient(request)) return redirect(enter, set);
      return {
        kind: 'answer',
        answer: {
          status,
          headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS), 'cache-control': 'no-store' },
          cookies: set,
          body: JSON.stringify({
            error: 'waiting_room',
            message: 'The site is busy: wait in line at the waiting room, then send the request again.',
            waitingRoom: enter,
          }),
        },
      };
    },

    async revoke(request) {
      const secure = new URL(request.url).protocol === 'https:';
      const cleared = [cookie(PASS_COOKIE, '', { maxAgeSeconds: 0, secure })];
      const token = readCookie(request.header('cookie'), PASS_COOKIE);
      const pass = token ? await passOf(request) : undefined;
      if (!token || !pass) return { revoked: false, cookies: cleared };
      // Refused here at once, whatever the waiting room answers; elsewhere once the feed is read.
      revocations.add(pass);
      const answer = await fetch(`${base}/queue/passes/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pass: token }),
      });
      if (!answer.ok) throw new Error(`The waiting room refused to revoke the pass: ${answer.status} ${await answer.text()}`);
      const { revoked } = (await answer.json()) as { revoked?: unknown };
      return { revoked: revoked === true, cookies: cleared };
    },
  };
}

function redirect(location: string, cookies: readonly string[]): Decision {
  return { kind: 'answer', answer: { status: 303, headers: { location, 'cache-control': 'no-store' }, cookies } };
}

function waitingRoomBase(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new TypeError(`waitingRoom: "${address}" is not an absolute http(s) address.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`waitingRoom: "${address}" is not an http(s) address.`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** 128 random bits, base64url: a browser's name to the waiting room, which binds its pass. */
function newVisitorId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * A request that cannot follow a redirect to a page: it prefers JSON to HTML, or its browser
 * says it is a `fetch` or the like (`Sec-Fetch-Mode` other than `navigate`).
 */
function isApiClient(request: ConnectorRequest): boolean {
  const mode = request.header('sec-fetch-mode');
  if (mode && mode.toLowerCase() !== 'navigate') return true;
  const accept = (request.header('accept') ?? '').toLowerCase();
  return accept.includes('json') && !accept.includes('text/html');
}
