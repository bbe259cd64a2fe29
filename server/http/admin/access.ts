import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors';
import { sameText } from '../../realtime/signature';
import type { AdminFailures } from './failures';

/** The console's session cookie: signed, HttpOnly, SameSite=Strict, sent to `/admin` only. */
export const ADMIN_COOKIE = 'waiting_room_admin';
/** The header a console session sends its CSRF token in, with every call that changes something. */
export const CSRF_HEADER = 'x-csrf-token';

export interface AdminAccessOptions {
  readonly token: string;
  /** The key the session cookie is signed with (SESSION_SECRET); also binds a session to the token. */
  readonly secret: string;
  readonly sessionSeconds: number;
  readonly now: () => number;
  /** The wrong tokens each address sent lately, by Bearer header and at sign-in alike. */
  readonly failures: AdminFailures;
}

/** Who is calling: a bearer-token client (curl, Prometheus) or a console session with its CSRF token. */
export type AdminCaller = { readonly kind: 'bearer' } | { readonly kind: 'session'; readonly csrfToken: string; readonly expiresAt: number };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An admin route that needs no admin access: the console's page, and signing in. */
    readonly adminOpen?: boolean;
  }
}

const callers = new WeakMap<FastifyRequest, AdminCaller>();
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Admin access for every route of `app` (a scope): `Authorization: Bearer <ADMIN_TOKEN>`, or the
 * console's session cookie. A session's calls that change anything must also carry its CSRF token
 * in `X-CSRF-Token`: the cookie is SameSite=Strict already, the token is the second lock (a
 * sibling subdomain is "same site", and old browsers ignore SameSite). Bearer calls need none: a
 * browser never adds that header by itself. Routes marked `adminOpen` pass without access.
 * Wrong Bearer tokens are counted and bounded as wrong sign-ins are (`AdminFailures`).
 */
export function requireAdminAccess(app: FastifyInstance, options: AdminAccessOptions): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.adminOpen) return;
    const caller = adminCaller(request, options);
    if (!caller) {
      // A wrong token counts (and past the limit is slowed, then refused with 429); a request
      // with neither token nor session guesses nothing.
      if (bearerOf(request) !== undefined) await options.failures.failed(request.ip);
      reply.header('www-authenticate', 'Bearer realm="waiting-room admin"');
      throw new HttpError(401, 'unauthorized', 'Send the admin token as "Authorization: Bearer <token>", or sign in at /admin/.');
    }
    if (caller.kind === 'session' && !SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameText(sent, caller.csrfToken)) {
        throw new HttpError(403, 'csrf_mismatch', "The console's CSRF token is missing or wrong: reload the console.");
      }
    }
    callers.set(request, caller);
  });
}

/** The caller `requireAdminAccess` let through. */
export function callerOf(request: FastifyRequest): AdminCaller | undefined {
  return callers.get(request);
}

/** The request's admin access, by bearer token or session cookie; undefined when it has neither. */
export function adminCaller(request: FastifyRequest, options: AdminAccessOptions): AdminCaller | undefined {
  const bearer = bearerOf(request);
  if (bearer !== undefined) return sameText(bearer, options.token) ? { kind: 'bearer' } : undefined;
  return sessionOf(request, options);
}

/** The token of an `Authorization: Bearer` header, if the request has one. */
function bearerOf(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
}

/**
 * Signs the console in: a new CSRF token and a cookie that ends after `sessionSeconds`. The
 * cookie holds no token, only its MAC under the session secret: a new ADMIN_TOKEN ends every
 * session signed in with the old one.
 */
export function startAdminSession(request: FastifyRequest, reply: FastifyReply, options: AdminAccessOptions): AdminCaller & { kind: 'session' } {
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = options.now() + options.sessionSeconds * 1000;
  const value = Buffer.from(JSON.stringify([expiresAt, csrfToken, tokenMac(options)])).toString('base64url');
  reply.setCookie(ADMIN_COOKIE, value, { ...cookieOptions(request), signed: true, maxAge: options.sessionSeconds });
  return { kind: 'session', csrfToken, expiresAt };
}

/** Signs the console out: the cookie is removed. */
export function endAdminSession(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(ADMIN_COOKIE, cookieOptions(request));
}

function cookieOptions(request: FastifyRequest) {
  return { httpOnly: true, sameSite: 'strict' as const, path: '/admin', secure: request.protocol === 'https' };
}

function tokenMac(options: AdminAccessOptions): string {
  return createHmac('sha256', options.secret).update(`admin-token:${options.token}`).digest('base64url').slice(0, 22);
}

function sessionOf(request: FastifyRequest, options: AdminAccessOptions): AdminCaller | undefined {
  const cookie = request.cookies?.[ADMIN_COOKIE];
  if (cookie === undefined) return undefined;
  const unsigned = request.unsignCookie(cookie);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    const [expiresAt, csrfToken, mac] = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString()) as unknown[];
    if (typeof expiresAt !== 'number' || typeof csrfToken !== 'string' || typeof mac !== 'string') return undefined;
    if (expiresAt <= options.now() || !sameText(mac, tokenMac(options))) return undefined;
    return { kind: 'session', csrfToken, expiresAt };
  } catch {
    return undefined;
  }
}
