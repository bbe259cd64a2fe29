import type { FastifyReply, FastifyRequest } from 'fastify';
import { readSession, signIn, startSession } from '../session';
import { mayLackSession } from './cross-site';
import type { QueueStore } from '../../store/types';

/**
 * The header an origin may answer with to name its signed-in user to the waiting room: a
 * whole number, 0 once signed out. It is the one thing a site does for the waiting room, and
 * it is optional: without it every visitor waits anonymously, on a public channel named after
 * an unguessable uuid. With it a signed-in visitor waits on a private channel of their own,
 * authorized by `/pusher/auth`. The visitor never sees it, and a client cannot send it: it is
 * read from the origin's answers only.
 */
export const USER_HEADER = 'waiting-room-user';

const USER_ID = /^\d{1,15}$/;

/**
 * Follows what the origin's answer says of its user. Signing in moves the visitor's place to a
 * new session id (`signIn`: the guard against session fixation); signing out starts a fresh
 * session, so that on a shared browser the next person gets neither the place nor the held
 * request of the one who left. A request another site sent without the visitor's cookie changes
 * nothing: the waiting room cannot tell whose it is.
 */
export async function followOriginUser(
  request: FastifyRequest,
  reply: FastifyReply,
  header: string | string[] | undefined,
  store: Pick<QueueStore, 'moveSession'>,
): Promise<void> {
  reply.removeHeader(USER_HEADER);
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !USER_ID.test(value.trim())) return;
  const userId = Number(value.trim());
  const session = readSession(request);
  if ((session?.userId ?? 0) === userId) return;
  // Another site's request may come without the visitor's cookie: a new one would replace it.
  if (!session && mayLackSession(request)) return;
  if (userId === 0) startSession(request, reply, { userId: 0 });
  else if (session) await signIn(request, reply, session, { userId }, store);
  else startSession(request, reply, { userId });
}
