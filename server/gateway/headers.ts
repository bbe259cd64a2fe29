import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../session';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the message, so a
 * proxy never passes them on. The names a `Connection` header lists are dropped too.
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Forwarding headers a client could forge: only this gateway's own reach the origin. */
const FORWARDING = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip'];

/** The header a monitor shows its signed bypass in (`bypass.ts`); the origin never sees it. */
export const BYPASS_HEADER = 'waiting-room-bypass';

type Headers = Record<string, string | string[] | undefined>;

/** `headers` without the hop-by-hop ones and those the `Connection` header names. */
export function withoutHopByHop<T extends Headers>(headers: T): T {
  const out: Headers = { ...headers };
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...listed]) delete out[name];
  return out as T;
}

/**
 * The Cookie header without the waiting room's own session cookie: the origin's cookies are
 * the origin's business, ours are not. Undefined when nothing is left.
 */
export function withoutOwnCookie(cookie: string | string[] | undefined): string | undefined {
  if (cookie === undefined) return undefined;
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
 * cookie and the bypass proof, with `X-Forwarded-For`/`-Proto`/`-Host` saying who asked and
 * how. With TRUST_PROXY the proxy in front of us is believed, and its chain is extended;
 * otherwise a client's own forwarding headers are dropped, since anyone can write them.
 */
export function originRequestHeaders(
  request: FastifyRequest,
  headers: IncomingHttpHeaders,
  options: ForwardOptions = {},
): IncomingHttpHeaders {
  const out: Headers = withoutHopByHop({ ...headers });
  delete out[BYPASS_HEADER];
  // Fastify gives `ips` only with TRUST_PROXY, nearest first; X-Forwarded-For lists the client first.
  const trusted = request.ips !== undefined;
  const chain = request.ips ? [...request.ips].reverse() : [request.ip];
  const forwardedHost = trusted ? firstValue(request.headers['x-forwarded-host']) : undefined;
  for (const name of FORWARDING) delete out[name];
  out['x-forwarded-for'] = chain.join(', ');
  out['x-forwarded-proto'] = request.protocol;
  const host = forwardedHost ?? request.headers.host;
  if (host !== undefined) out['x-forwarded-host'] = host;
  const cookie = options.withoutCookies ? undefined : withoutOwnCookie(request.headers.cookie);
  if (cookie === undefined) delete out.cookie;
  else out.cookie = cookie;
  if (options.contentType !== undefined) out['content-type'] = options.contentType;
  return out as IncomingHttpHeaders;
}

/** The origin's answer headers as the visitor gets them: all but the hop-by-hop ones. */
export function visitorResponseHeaders(headers: Headers): Headers {
  return withoutHopByHop(headers);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
}
