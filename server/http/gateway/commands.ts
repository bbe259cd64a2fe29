import type { FastifyReply, FastifyRequest } from 'fastify';
import { readSession } from '../session';

/**
 * The header an origin may answer with to tell the waiting room what to do with the visitor's
 * session. `revoke` ends its admission at once (a finished checkout): its slot goes to the next
 * visitor in line instead of waiting for SESSION_SECONDS to run out. The visitor never sees it;
 * a client cannot send it (it is read from the origin's answers only); other values are ignored.
 */
export const COMMAND_HEADER = 'waiting-room-command';

/** Who can end a session's admission, and who counts it. */
export interface Revoker {
  /** Ends the session's admission in every room: the rooms it was admitted in. */
  revoke(sessionId: string, now: number): Promise<readonly string[]>;
}

/** Follows the origin's `Waiting-Room-Command`, after taking it off the visitor's answer. */
export async function followOriginCommand(
  request: FastifyRequest,
  reply: FastifyReply,
  header: string | string[],
  rooms: Revoker,
  now: number,
  revoked: (room: string) => void,
): Promise<void> {
  reply.removeHeader(COMMAND_HEADER);
  const commands = [header]
    .flat()
    .flatMap((value) => value.split(','))
    .map((command) => command.trim().toLowerCase());
  if (!commands.includes('revoke')) return;
  const session = readSession(request);
  if (!session) return;
  for (const room of await rooms.revoke(session.id, now)) revoked(room);
}
