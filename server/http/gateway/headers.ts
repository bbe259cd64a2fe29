import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../session';
import { PASS_HEADER, passOf } from './pass-header';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the message, so a
 * proxy never passes them on. The names a `Connection` header lists are dropped too.
 */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** The forwarding headers this gateway writes itself (`originRequestHeaders`): the client's never pass. */
const REWRITTEN = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port'];

/**
 * Headers that would make the origin serve another path or method than the one the gate
 * checked (IIS, Symfony, Zend read `X-Original-URL`; method-override middleware the others): a
 * way around PROTECT, never passed on, whoever set them.
 */
export const ROUTING_OVERRIDES = ['x-original-url', 'x-rewrite-url', 'x-original-uri', 'x-http-method-override', 'x-http-method', 'x-method-override'];

/**
 * Headers that claim to say who asked (the client's address) or how they came (scheme, host,
 * port, path prefix, the proxy they came through), which frameworks read when they trust the
 * proxy in front, as the origin trusts this gateway. Anyone can write them, so they reach the
 * origin only behind TRUST_PROXY, where the proxy in front sets (or clears) them. docs/security.md
 * lists them.
 */
export const CLIENT_CLAIMS = [
  'forwarded',
  'x-forwarded',
  'forwarded-for',
  'x-forwarded-by',
  'x-forwarded-prefix',
  'x-forwarded-path',
  'x-forwarded-uri',
  'x-forwarded-scheme',
  'x-forwarded-protocol',
  'x-forwarded-ssl',
  'x-url-scheme',
  'front-end-https',
  'x-forwarded-server',
  'x-original-host',
  'x-host',
  'x-real-ip',
  'x-client-ip',
  'client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'cf-connecting-ipv6',
  'fastly-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
  'x-originating-ip',
  'x-remote-ip',
  'x-remote-addr',
  'x-proxyuser-ip',
  'wl-proxy-client-ip',
  'proxy-client-ip',
  'x-envoy-external-address',
  'x-azure-clientip',
  'x-azure-socketip',
  'x-appengine-user-ip',
  'cloudfront-viewer-address',
  'fly-client-ip',
  'x-nf-client-connection-ip',
  'x-vercel-forwarded-for',
  // The client certificate a TLS-terminating proxy saw (Envoy, Istio, ARR, ALB, nginx): an
  // origin that authenticates by mutual TLS believes them.
  'x-forwarded-client-cert',
  'x-client-cert',
  'client-cert',
  'client-cert-chain',
  'x-ssl-client-cert',
  'ssl-client-cert',
  'x-ssl-client-verify',
  'ssl-client-verify',
  'x-ssl-client-s-dn',
  'x-arr-clientcert',
  'x-arr-ssl',
  'x-amzn-mtls-clientcert',
  'x-amzn-mtls-clientcert-leaf',
];

/**
 * Families of claims, by prefix: Envoy trusts every `x-envoy-*` header from its edge (internal
 * request, original path, upstream overrides), and frameworks read a growing set of
 * `x-forwarded-*` ones. Treated as CLIENT_CLAIMS (the ones the gateway writes itself are rewritten).
 */
export const CLIENT_CLAIM_PREFIXES = ['x-forwarded-', 'x-envoy-'];

/** The header a monitor shows its signed bypass in (`bypass.ts`); the origin never sees it. */
export const BYPASS_HEADER = 'waiting-room-bypass';

/** What the origin never gets from the visitor behind TRUST_PROXY: hop-by-hop, rewritten, routing, bypass and pass headers. */
const NOT_FORWARDED_TRUSTED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...REWRITTEN, ...ROUTING_OVERRIDES, BYPASS_HEADER, PASS_HEADER]);
/** What the origin never gets from a visitor who reached this gateway directly: also the claims. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...NOT_FORWARDED_TRUSTED, ...CLIENT_CLAIMS]);

/** Whether `name` (lower case, as Node gives it) is a claim by its prefix. */
function claimByPrefix(name: string): boolean {
  return CLIENT_CLAIM_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * Whether `name` is a dropped header spelt with underscores (`x_real_ip`, `Waiting_Room_Pass`):
 * CGI, WSGI, PHP and Rack turn `-` into `_` to make their variables, so the origin reads it as the
 * dashed one. Dropped whether or not the proxy in front is trusted: that proxy sets or clears the
 * dashed spelling only.
 */
function underscoreSpelling(name: string): boolean {
  if (!name.includes('_')) return false;
  const dashed = name.replaceAll('_', '-');
  return NOT_FORWARDED.has(dashed) || claimByPrefix(dashed);
}

type Headers = Record<string, string | string[] | undefined>;

/** `headers` without the hop-by-hop ones and those the `Connection` header names. */
export function withoutHopByHop<T extends Headers>(headers: T): T {
  return copyWithout(headers, dropped(headers.connection, HOP_BY_HOP_SET)) as T;
}

const HOP_BY_HOP_SET: ReadonlySet<string> = new Set(HOP_BY_HOP);

/** The names to leave out: `base`, plus those a `Connection` header lists. */
function dropped(connection: string | string[] | undefined, base: ReadonlySet<string>): ReadonlySet<string> {
  if (connection === undefined) return base;
  // Mostly `keep-alive` or `close`, which name no header: no new set for those.
  const listed = String(connection)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'keep-alive' && name !== 'close' && !base.has(name));
  return listed.length === 0 ? base : new Set([...base, ...listed]);
}

/** A copy of `headers` without `names` nor those `alsoDropped` picks, built in one pass (deleting would slow every later read). */
function copyWithout(headers: Headers, names: ReadonlySet<string>, alsoDropped?: (name: string) => boolean): Headers {
  const out: Headers = {};
  for (const name in headers) if (!names.has(name) && !alsoDropped?.(name)) out[name] = headers[name];
  return out;
}

function claimOrUnderscore(name: string): boolean {
  return claimByPrefix(name) || underscoreSpelling(name);
}

/**
 * The Cookie header without the waiting room's own session cookie: the origin's cookies are
 * the origin's business, ours are not. Undefined when nothing is left.
 */
export function withoutOwnCookie(cookie: string | string[] | undefined): string | undefined {
  if (cookie === undefined) return undefined;
  if (typeof cookie === 'string' && !cookie.includes(SESSION_COOKIE)) return cookie;
  const pairs = (Array.isArray(cookie) ? cookie.join('; ') : cookie)
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && pair.split('=', 1)[0]?.trim() !== SESSION_COOKIE);
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

export interface ForwardOptions {
  /** Send no cookie at all: a replay of a request that came from another site. */
  readonly withoutCookies?: boolean;
  /** The content type to send instead of the request's (a replayed body keeps its own). */
  readonly contentType?: string;
}

/**
 * The headers the origin gets for `request`: the visitor's, less the hop-by-hop ones, our
 * cookie, the bypass proof, any pass of theirs and the routing overrides, with `X-Forwarded-For`/`-Proto`/`-Host`
 * saying who asked and how. With TRUST_PROXY the proxy in front of us is believed: its chain is
 * extended and its other forwarding headers pass; otherwise a client's own (`CLIENT_CLAIMS`) are
 * dropped, since anyone can write them.
 */
export function originRequestHeaders(request: FastifyRequest, headers: IncomingHttpHeaders, options: ForwardOptions = {}): IncomingHttpHeaders {
  // Fastify gives `ips` only with TRUST_PROXY, nearest first; X-Forwarded-For lists the client first.
  const trusted = request.ips !== undefined;
  const out = copyWithout(
    headers,
    dropped(headers.connection, trusted ? NOT_FORWARDED_TRUSTED : NOT_FORWARDED),
    trusted ? underscoreSpelling : claimOrUnderscore,
  );
  const chain = request.ips ? [...request.ips].reverse() : [request.ip];
  const forwardedHost = trusted ? firstValue(request.headers['x-forwarded-host']) : undefined;
  out['x-forwarded-for'] = chain.join(', ');
  out['x-forwarded-proto'] = request.protocol;
  const host = forwardedHost ?? request.headers.host;
  if (host !== undefined) out['x-forwarded-host'] = host;
  const cookie = options.withoutCookies ? undefined : withoutOwnCookie(request.headers.cookie);
  if (cookie === undefined) delete out.cookie;
  else out.cookie = cookie;
  if (options.contentType !== undefined) out['content-type'] = options.contentType;
  const pass = passOf(request);
  if (pass !== undefined) out[PASS_HEADER] = pass;
  return out;
}

/** The origin's answer headers as the visitor gets them: all but the hop-by-hop ones. */
export function visitorResponseHeaders(headers: Headers): Headers {
  return withoutHopByHop(headers);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
}
