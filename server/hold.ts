import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORM } from './body';
import type { Clock } from './clock';
import type { ServerConfig } from './config';
import { pageConfigFor, type RequestOrigin } from './page-config';
import type { WaitingPage } from './page';
import { restoreHeld } from './replay';
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

/** True when `url`'s path is one of `prefixes` or below one (by whole path segments). */
export function isProtected(url: string, prefixes: readonly string[]): boolean {
  return pathSpellings(url).some((path) => underAny(path, prefixes));
}

/**
 * The waiting room's own routes: the page's assets, queue_request and queue_info, channel
 * authorization, the admin API, the error sink, the events API and the realtime socket.
 */
const OWN_PREFIXES = ['/assets', '/queue', '/pusher/auth', '/admin', '/apps', '/app', '/favicon.ico'];
const SINK = /^\/api\/[^/]+\/envelope\/?$/;

/**
 * True when `url` is one of the waiting room's own routes, which are never held whatever
 * PROTECT says (`PROTECT=/` would otherwise hold the waiting page's own script, its polls and
 * the admin API). Every spelling of the path must be one, so that no other route slips through.
 */
export function isWaitingRoomRoute(url: string): boolean {
  return pathSpellings(url).every((path) => underAny(path, OWN_PREFIXES) || SINK.test(path));
}

/** The path of `url` as sent and percent-decoded (one spelling when it cannot be decoded). */
function pathSpellings(url: string): string[] {
  const path = url.split('?')[0] ?? '';
  try {
    return [path, decodeURIComponent(path)];
  } catch {
    // A malformed escape cannot route anywhere either; the raw path still counts.
    return [path];
  }
}

function underAny(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
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

  app.addHook('preHandler', async (request, reply) => {
    if (!HELD_METHODS.has(request.method) || !isProtected(request.url, config.protect)) return;
    if (isWaitingRoomRoute(request.url)) return;
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

/** The request as it will be replayed: verb, same-origin path with query, and body. */
export function heldRequestOf(request: FastifyRequest): HeldRequest {
  const method = request.method.toUpperCase();
  const raw = request.rawBody;
  if (method === 'GET' || raw === undefined) return { method, uri: request.url };
  return { method, uri: request.url, body: { contentType: request.headers['content-type'] ?? FORM, raw } };
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
