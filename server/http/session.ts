import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { idInLane, laneOf } from '../domain/lanes';
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import type { QueueStore } from '../store/types';

/** A visitor's session, kept whole in a signed cookie so that every instance can read it. */
export interface Session {
  readonly id: string;
  /** 0 for anonymous visitors. */
  readonly userId: number;
  /** The name the visitor signed in with. */
  readonly name?: string;
  readonly csrfToken: string;
}

export const SESSION_COOKIE = 'waiting_room_session';

declare module 'fastify' {
  interface FastifyInstance {
    /** How long the session cookie outlives the browser (its Max-Age, s): see `installSessions`. */
    readonly sessionCookieSeconds?: number;
  }
}

/**
 * The session cookie's least lifetime: a day, so that a visitor who closes the browser and opens
 * it again keeps a place that waited for hours, and still not a cookie that lasts for ever.
 */
export const SESSION_COOKIE_MIN_SECONDS = 24 * 3600;

/** The session each request carries (read once) or was given. */
const sessions = new WeakMap<FastifyRequest, Session | null>();

/**
 * Registers @fastify/cookie, which parses the Cookie header and signs the session cookie with
 * `secret`. It is pinned at 11.0.2: later 11.x releases load the ESM-only `cookie@2` with a
 * dynamic import() that the test runner's module sandbox cannot run, while 11.0.2 uses the
 * CommonJS `cookie@1`, with the same parsing, serialisation and signature format.
 */
export function installSessions(app: FastifyInstance, secret: string, cookieSeconds = SESSION_COOKIE_MIN_SECONDS): void {
  app.register(fastifyCookie, { secret });
  // A browser drops a cookie without Max-Age when it closes: the place in line would go with it.
  app.decorate('sessionCookieSeconds', cookieSeconds);
}

/** The request's session from its cookie, or undefined when there is none or it was tampered with. */
export function readSession(request: FastifyRequest): Session | undefined {
  let session = sessions.get(request);
  if (session === undefined) {
    session = sessionFromCookie(request) ?? null;
    sessions.set(request, session);
  }
  return session ?? undefined;
}

/** The request's session, or a new anonymous one whose cookie is set on the reply. */
export function ensureSession(request: FastifyRequest, reply: FastifyReply): Session {
  return readSession(request) ?? startSession(request, reply, { userId: 0 });
}

/**
 * A session for this request alone, with no cookie: for a request that cannot show whose it is
 * (`gateway/cross-site.ts`), which may be let through but must not replace the visitor's cookie.
 */
export function unsavedSession(): Session {
  return { id: randomUUID(), userId: 0, csrfToken: newCsrfToken() };
}

/** The request's session, or a 419 when the visitor has none (expired or never visited). */
export function requireSession(request: FastifyRequest): Session {
  const session = readSession(request);
  if (!session) throw new HttpError(419, 'session_expired', 'No session: reload the page.');
  return session;
}

/**
 * Starts a fresh session (a new id and CSRF token) and sets its cookie. Signing out starts
 * one, so that on a shared browser the next person gets neither the place in line nor the
 * held request of the one who signed out.
 */
export function startSession(request: FastifyRequest, reply: FastifyReply, user: { readonly userId: number; readonly name?: string }): Session {
  return writeSession(request, reply, { id: randomUUID(), csrfToken: newCsrfToken(), ...user });
}

/**
 * Signs the visitor in under a new session id and CSRF token, and moves their place in line
 * and admission from the old id to the new one in one store step (see `moveSession`).
 *
 * The new id is the guard against session fixation: someone who planted a session cookie
 * before sign-in (from a sibling subdomain, or over plain HTTP) shared, through its id, the
 * visitor's place, admission and held request. After sign-in the planted id has nothing left
 * to share, and the new one is only in the cookie set here, which its planter never sees. The
 * place moves with the visitor, so they keep their uuid and position.
 *
 * The cookie is set only once the move succeeded: when the store fails (503), the visitor
 * keeps the old cookie and everything still under it, and can sign in again.
 */
export async function signIn(
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
  user: { readonly userId: number; readonly name?: string },
  store: Pick<QueueStore, 'moveSession'>,
): Promise<Session> {
  // In the old id's lane: a room whose line is split across shards keeps the place in its part (lanes.ts).
  const id = idInLane(laneOf(session.id));
  await store.moveSession(session.id, id, user.userId);
  return writeSession(request, reply, { id, csrfToken: newCsrfToken(), ...user });
}

/**
 * Gives this browser the session `id` (a new one, which only this cookie carries) with the user
 * and name of a place moved to it from another browser (`routes/handoff.ts`): the place, its
 * held request and its sign-in are this browser's from now on.
 */
export function adoptSession(request: FastifyRequest, reply: FastifyReply, id: string, user: { readonly userId: number; readonly name?: string }): Session {
  return writeSession(request, reply, { id, csrfToken: newCsrfToken(), userId: user.userId, ...(user.name ? { name: user.name } : {}) });
}

function writeSession(request: FastifyRequest, reply: FastifyReply, session: Session): Session {
  sessions.set(request, session);
  reply.setCookie(SESSION_COOKIE, encode(session), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    ...(request.server.sessionCookieSeconds !== undefined && { maxAge: request.server.sessionCookieSeconds }),
  });
  return session;
}

function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** True when `token` is the session's CSRF token (compared in constant time). */
export function hasCsrfToken(session: Session, token: unknown): boolean {
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(typeof token === 'string' ? token : '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Throws a 419 unless `token` is the session's CSRF token. */
export function checkCsrf(session: Session, token: unknown): void {
  if (!hasCsrfToken(session, token)) {
    throw new HttpError(419, 'csrf_mismatch', 'The CSRF token is missing or wrong: reload the page.');
  }
}

function sessionFromCookie(request: FastifyRequest): Session | undefined {
  if (!request.cookies) throw new Error('Sessions are not installed on this server.');
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie === undefined) return undefined;
  const unsigned = request.unsignCookie(cookie);
  return unsigned.valid && unsigned.value !== null ? decode(unsigned.value) : undefined;
}

function encode(session: Session): string {
  return Buffer.from(JSON.stringify([session.id, session.userId, session.csrfToken, session.name ?? ''])).toString('base64url');
}

function decode(value: string): Session | undefined {
  try {
    const [id, userId, csrfToken, name] = JSON.parse(Buffer.from(value, 'base64url').toString()) as unknown[];
    if (typeof id !== 'string' || typeof csrfToken !== 'string' || typeof name !== 'string') return undefined;
    if (typeof userId !== 'number' || !Number.isSafeInteger(userId) || userId < 0) return undefined;
    return name ? { id, userId, csrfToken, name } : { id, userId, csrfToken };
  } catch {
    return undefined;
  }
}
