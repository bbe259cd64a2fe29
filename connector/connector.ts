import { signEnter } from './core/enter.js';
import { CONNECTOR, decideProtected, PASS_COOKIE, readRequest, VISITOR_COOKIE, type Decision as DoorDecision, type DoorRequest } from './core/door.js';
import { readCookie, setCookie } from './core/cookies.js';
import { prefixTest } from './core/protection.js';
import { PASS_SECRET_MIN_LENGTH, verifyPass, type Pass } from './pass.js';
import { Revocations, type RevocationFeedOptions } from './revocations.js';
import { VerifiedPasses } from './verified-passes.js';

export { PASS_COOKIE, PASS_PARAMETER, VISITOR_COOKIE } from './core/door.js';

/** Held API clients are told to ask again after this long. */
const RETRY_AFTER_SECONDS = 10;

export interface ConnectorOptions extends RevocationFeedOptions {
  /** The waiting room's public address, e.g. `https://queue.example.com`. */
  readonly waitingRoom: string;
  /**
   * The room (a name in the waiting room's ROOMS, or `default`) this site's visitors wait in.
   * Required: it is the audience of every pass, and a wrong one fails only once visitors come.
   */
  readonly room: string;
  /** The secret shared with the waiting room (its PASS_SECRET): at least 32 characters. */
  readonly secret: string;
  /**
   * A path prefix, or a list of them, that need a pass, matched by whole segments,
   * case-insensitively, also without `;parameters` or a format suffix (docs/adopt.md);
   * default: every path.
   */
  readonly protect?: string | readonly string[];
  /** The status held API clients get: 503 (the default), or 200, 202 or 429. */
  readonly queueingStatusCode?: 200 | 202 | 429 | 503;
  /** The clock, in ms since the epoch; `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * What the connector needs of a request, whatever the framework: the request as the framework
 * routes it (the core's `DoorRequest`: method, raw target, headers, the site's scheme and host);
 * or, for a runtime that gives only a URL, that absolute URL, whose path and query are then the
 * target.
 */
export type ConnectorRequest = DoorRequest | UrlRequest;

/** A request known by its absolute URL (`https://shop.example/checkout?x=1`), as fetch's Request is. */
export interface UrlRequest {
  readonly method: string;
  readonly url: string;
  readonly header: DoorRequest['header'];
  readonly hasBody?: boolean;
}

/** The request as the core reads it. */
export function doorRequestOf(request: ConnectorRequest): DoorRequest {
  if (!('url' in request)) return request;
  const url = new URL(request.url);
  return {
    method: request.method,
    target: url.pathname + url.search,
    header: request.header,
    ...(request.hasBody !== undefined && { hasBody: request.hasBody }),
    site: { protocol: url.protocol.slice(0, -1), host: url.host },
  };
}

/** An answer the connector sends instead of the site: a redirect, a held API client's, or a refusal. */
export interface ConnectorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Set-Cookie values. */
  readonly cookies: readonly string[];
  readonly body?: string;
}

export type Decision =
  /** Not a protected path (or a CORS preflight): the site answers. */
  | { readonly kind: 'open' }
  /** A protected path and a valid pass: the site answers. */
  | { readonly kind: 'admitted'; readonly pass: Pass }
  /** The connector answers: to the waiting room, back to the address without its pass, or a refusal. */
  | { readonly kind: 'answer'; readonly answer: ConnectorAnswer; readonly decision: DoorDecision };

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

/**
 * The connector: the core's decision (core/door.ts) on each request, a pass checked on each
 * protected one with no call to the waiting room, and the answers that decision makes.
 */
export function createConnector(options: ConnectorOptions): Connector {
  const base = waitingRoomBase(options.waitingRoom);
  const room = roomOf(options.room);
  if (typeof options.secret !== 'string' || options.secret.length < PASS_SECRET_MIN_LENGTH) {
    throw new TypeError(`secret: the waiting room's PASS_SECRET, at least ${PASS_SECRET_MIN_LENGTH} characters.`);
  }
  const { secret } = options;
  const protects = prefixTest(prefixesOf(options.protect), 'protect');
  const now = options.now ?? Date.now;
  const status = options.queueingStatusCode ?? 503;
  const verified = new VerifiedPasses();
  const revocations = new Revocations({ ...options, waitingRoom: base, now });

  /**
   * The pass check: the pass `token` is, signed for this room, unexpired and given to `visitor`.
   * Its result is what the core decides with (`decideProtected`).
   */
  const check = async (token: string | undefined, visitor: string | undefined): Promise<Pass | undefined> => {
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

  /** The waiting room's enter address for a visitor, signed so that only this connector makes one (core/enter.ts). */
  const enterOf = async (address: string, visitor: string) => {
    const at = Math.floor(now() / 1000);
    const sig = await signEnter({ room, visitor, target: address, at }, secret);
    return `${base}/queue/enter/${room}?${new URLSearchParams({ target: address, visitor, at: String(at), sig })}`;
  };

  return {
    passOf,

    async decide(asked) {
      const reading = readRequest(doorRequestOf(asked), protects, CONNECTOR);
      if (reading.kind === 'open') return { kind: 'open' };
      if (reading.kind === 'refused') {
        const body = JSON.stringify({ error: reading.code, message: reading.message });
        return answer(reading, { status: reading.status, headers: { ...reading.headers, ...JSON_HEADERS }, cookies: [], body });
      }
      const credential = reading.credential;
      const pass = credential && (await check(credential.token, reading.visitor.id));
      const decision = decideProtected(reading, pass, now());
      switch (decision.kind) {
        case 'site':
          return decision.pass ? { kind: 'admitted', pass: decision.pass } : { kind: 'open' };
        case 'refused':
          return answer(decision, { status: decision.status, headers: decision.headers, cookies: [] });
        case 'back':
          return answer(decision, { status: 303, headers: { location: decision.location, 'cache-control': 'no-store' }, cookies: decision.cookies });
        case 'wait': {
          const enter = await enterOf(decision.address, decision.visitor);
          if (decision.client === 'browser')
            return answer(decision, { status: 303, headers: { location: enter, 'cache-control': 'no-store' }, cookies: decision.cookies });
          return answer(decision, {
            status,
            headers: { ...JSON_HEADERS, 'retry-after': String(RETRY_AFTER_SECONDS), vary: 'Accept, Sec-Fetch-Mode' },
            cookies: decision.cookies,
            body: JSON.stringify({
              error: 'waiting_room',
              message: 'The site is busy: wait in line at the waiting room, then send the request again.',
              waitingRoom: enter,
            }),
          });
        }
      }
    },

    async revoke(request) {
      const secure = doorRequestOf(request).site?.protocol.toLowerCase() === 'https';
      const cleared = [setCookie(PASS_COOKIE, '', { maxAgeSeconds: 0, secure })];
      const token = readCookie(request.header('cookie'), PASS_COOKIE);
      const pass = token ? await passOf(request) : undefined;
      if (!token || !pass) return { revoked: false, cookies: cleared };
      // Refused here at once, whatever the waiting room answers; elsewhere once the feed is read.
      revocations.add(pass);
      const reply = await fetch(`${base}/queue/passes/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pass: token }),
      });
      if (!reply.ok) throw new Error(`The waiting room refused to revoke the pass: ${reply.status} ${await reply.text()}`);
      const { revoked } = (await reply.json()) as { revoked?: unknown };
      return { revoked: revoked === true, cookies: cleared };
    },
  };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

function answer(decision: DoorDecision, reply: ConnectorAnswer): Decision {
  return { kind: 'answer', answer: reply, decision };
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

/** The room, required: it is every pass's audience, so a silent default would fail only once visitors come. */
function roomOf(room: unknown): string {
  if (room === undefined) {
    throw new TypeError('room: missing. Name the room this site\'s visitors wait in: one of the waiting room\'s ROOMS, or "default" when it has none.');
  }
  if (typeof room !== 'string' || !/^[a-z0-9-]{1,32}$/.test(room))
    throw new TypeError(`room: ${JSON.stringify(room)} is not a room name (lower-case letters, digits, dashes).`);
  return room;
}

/** `protect` as a list: one path, or several. */
function prefixesOf(protect: unknown): readonly string[] {
  if (protect === undefined) return ['/'];
  if (typeof protect === 'string') return [protect];
  if (Array.isArray(protect) && protect.length > 0) return protect as string[];
  throw new TypeError(`protect: a path or a non-empty list of paths, e.g. "/checkout" or ["/checkout", "/tickets"]; got ${JSON.stringify(protect)}.`);
}
