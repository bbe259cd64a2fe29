import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM } from './body';
import type { Clock } from './clock';
import type { ServerConfig } from './config';
import { pageConfigFor, type RequestOrigin } from './page-config';
import type { WaitingPage } from './page';
import { requestTarget } from './http/target';
import { restoreHeld } from './replay';
import { decodeSegment, normalizeTarget } from './request-target';
import { checkCsrf, ensureSession } from './session';
import type { AdmissionLimits, HeldRequest, QueueStore } from './store/types';

export interface HoldOptions {
  readonly config: ServerConfig;
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly page: WaitingPage;
  /** The port this instance listens on (known once listening). */
  readonly port: () => number;
}

/** Verbs the waiting room holds; others (OPTIONS…) pass untouched. */
const HELD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

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
 * authorization, the admin API, the error sink, the events API and the realtime socket.
 */
const OWN_PREFIXES = ['/assets', '/queue', '/pusher/auth', '/admin', '/apps', '/app', '/favicon.ico'];
const SINK = /^\/api\/[^/]+\/envelope\/?$/;

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

function isOwnPath(path: string): boolean {
  return OWN_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) || SINK.test(path);
}

/**
 * Puts the protected routes, but never the waiting room's own, behind the waiting room. A
 * protected request passes when its session is admitted (or can be); a replay form restores
 * its held request once; anything else is held and answered, at its own URL, with the
 * waiting page.
 */
export function protectRoutes(app: FastifyInstance, options: HoldOptions): void {
  const { config, store, clock } = options;
  const limits: AdmissionLimits = { activeLimit: config.activeLimit, sessionMs: config.sessionSeconds * 1000 };
  const protects = protectionTest(config.protect);

  app.addHook('preHandler', async (request, reply) => {
    if (!HELD_METHODS.has(request.method)) return;
    // The target the router routed, parsed once before routing (http/target.ts).
    const { path } = requestTarget(request);
    if (!protects(path) || isOwnPath(path)) return;
    const session = ensureSession(request, reply);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const fields = bodyFields(request.body);
      checkCsrf(session, fields._token ?? request.headers['x-csrf-token']);
      if (fields.uuid !== undefined) return restoreHeld(request, session, fields, store);
    }
    const now = clock.now();
    if (await store.admit(session.id, now, limits)) return;
    if (request.method === 'HEAD') {
      // A HEAD cannot be replayed: it says "not now" without taking a place.
      return reply.code(503).header('retry-after', '60').header('cache-control', 'no-store').send();
    }
    const entry = await store.hold(session.id, session.userId, heldRequestOf(request), now);
    const place = await store.placeInLine(entry.uuid, now);
    const pageConfig = pageConfigFor(
      place?.entry ?? entry,
      place?.position ?? 0,
      session,
      config,
      originOf(request, config.host),
      options.port(),
    );
    return sendWaitingPage(reply, options.page.render(pageConfig));
  });
}

function sendWaitingPage(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .header('vary', 'Cookie')
    .header('x-robots-tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(html);
}

function bodyFields(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** The request as it will be replayed: verb, normalized same-origin path with query, and body. */
export function heldRequestOf(request: FastifyRequest): HeldRequest {
  const method = request.method.toUpperCase();
  const uri = requestTarget(request).target;
  const raw = request.rawBody;
  if (method === 'GET' || raw === undefined) return { method, uri };
  return { method, uri, body: { contentType: request.headers['content-type'] ?? FORM, raw } };
}

const HOSTNAME = /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

/** The origin the visitor reached us by; an unusable Host header falls back to `fallbackHost`. */
export function originOf(request: FastifyRequest, fallbackHost: string): RequestOrigin {
  const valid = HOSTNAME.test(request.hostname);
  const hostname = valid ? request.hostname : fallbackHost;
  const port = valid ? request.port : request.socket.localPort;
  return {
    hostname,
    host: port ? `${hostname}:${port}` : hostname,
    secure: request.protocol === 'https',
  };
}
