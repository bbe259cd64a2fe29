import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Signer } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors';

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

const sessions = new WeakMap<FastifyRequest, Session>();
const signers = new WeakMap<FastifyRequest, Signer>();

/**
 * Reads the signed session cookie of every request, signed with `secret` by @fastify/cookie's
 * signer. The plugin itself is not registered: it loads the `cookie` package with a dynamic
 * import that the test runner's module sandbox cannot run, and one cookie needs no more than
 * the few lines below.
 */
export function installSessions(app: FastifyInstance, secret: string): void {
  const signer = new Signer(secret);
  app.addHook('onRequest', async (request) => {
    signers.set(request, signer);
    const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (cookie === undefined) return;
    const unsigned = signer.unsign(cookie);
    const session = unsigned.valid && unsigned.value !== null ? decode(unsigned.value) : undefined;
    if (session) sessions.set(request, session);
  });
}

/** The request's session from its cookie, or undefined when there is none or it was tampered with. */
export function readSession(request: FastifyRequest): Session | undefined {
  return sessions.get(request);
}

/** The request's session, or a new anonymous one whose cookie is set on the reply. */
export function ensureSession(request: FastifyRequest, reply: FastifyReply): Session {
  return readSession(request) ?? startSession(request, reply, { userId: 0 });
}

/** The request's session, or a 419 when the visitor has none (expired or never visited). */
export function requireSession(request: FastifyRequest): Session {
  const session = readSession(request);
  if (!session) throw new HttpError(419, 'session_expired', 'No session: reload the page.');
  return session;
}

/**
 * Starts a fresh session (a new id and CSRF token) and sets its cookie. Signing in and out
 * start one, so that a session id known before signing in is worth nothing after.
 */
export function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  user: { readonly userId: number; readonly name?: string },
): Session {
  const signer = signers.get(request);
  if (!signer) throw new Error('Sessions are not installed on this server.');
  const session: Session = { id: randomUUID(), csrfToken: randomBytes(24).toString('base64url'), ...user };
  sessions.set(request, session);
  const value = encodeURIComponent(signer.sign(encode(session)));
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${secure}`);
  return session;
}

/** Throws a 419 unless `token` is the session's CSRF token. */
export function checkCsrf(session: Session, token: unknown): void {
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(typeof token === 'string' ? token : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(419, 'csrf_mismatch', 'The CSRF token is missing or wrong: reload the page.');
  }
}

/** One cookie's value from a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim() !== name) continue;
    try {
      return decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function encode(session: Session): string {
  return Buffer.from(JSON.stringify([session.id, session.userId, session.csrfToken, session.name ?? ''])).toString(
    'base64url',
  );
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
