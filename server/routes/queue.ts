import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldsOf, textField } from '../body';
import type { Clock } from '../clock';
import { HttpError } from '../errors';
import { estimateMinutes } from '../estimate';
import { ROUTES } from '../page-config';
import type { Room, Rooms } from '../rooms';
import { checkCsrf, requireSession } from '../session';
import { RecentReleasesCache } from '../store/recent-releases-cache';

export interface QueueRouteOptions {
  readonly rooms: Rooms;
  readonly clock: Clock;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The waiting page's two named routes: queue_request and queue_info. */
export async function queueRoutes(app: FastifyInstance, options: QueueRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  // Line-wide, so read once per move of the line for every poll of this instance, not per poll.
  const recentReleases = new Map(rooms.all.map((room) => [room.name, new RecentReleasesCache(room.store)]));
  /** The room a call names (`?room=`, which a page of any room but the first carries). */
  const roomOf = (request: FastifyRequest): Room => rooms.named((request.query as Record<string, unknown>).room);

  /** "I am listening": keeps the place alive, and sends the release event again if it was missed. */
  app.post(ROUTES.queue_request, async (request, reply) => {
    const fields = fieldsOf(request);
    const { store, releases } = roomOf(request);
    const session = requireSession(request);
    checkCsrf(session, fields._token);
    const uuid = textField(fields, 'uuid');
    if (uuid === undefined || !UUID.test(uuid)) {
      throw new HttpError(400, 'bad_uuid', 'The uuid field must be a UUID.');
    }
    const entry = await store.get(uuid);
    if (!entry) throw new HttpError(404, 'unknown_uuid', 'No place in line has this uuid.');
    if (entry.sessionId !== session.id) {
      throw new HttpError(403, 'not_your_place', 'This place in line belongs to another visitor.');
    }
    const userId = fields.user_id;
    if (userId !== undefined && userId !== null && Number(userId || 0) !== entry.userId) {
      throw new HttpError(403, 'wrong_user', 'user_id is not the user this place was held for.');
    }
    await store.touch(uuid, clock.now());
    if (entry.state === 'released') await releases.announce(entry);
    return reply.code(202).send({ uuid, state: entry.state });
  });

  /**
   * The visitor's position (0 once released) and the estimated wait in minutes. A waiting
   * visitor's answer also carries `ticket` and `served` (an extension: `position = ticket -
   * served`), so that the page can move them up on each `QueueMoved` without asking again.
   * `served` counts the places that have left the head of the line, and `ticket` is the
   * visitor's place counted from the start of the line as it stands now (`served + position`):
   * k more leaving the head move them up by k, and places gone from the middle show in the next
   * answer's smaller position.
   */
  app.get(ROUTES.queue_info.replace('{uuid}', ':uuid'), async (request, reply) => {
    const { uuid } = request.params as { uuid: string };
    const room = roomOf(request);
    const now = clock.now();
    const place = UUID.test(uuid) ? await room.store.position(uuid, now) : undefined;
    if (!place) throw new HttpError(404, 'unknown_uuid', 'No place in line has this uuid.');
    const { position, served } = place;
    const recent = position > 0 ? await (recentReleases.get(room.name) as RecentReleasesCache).read(served) : [];
    const estimated = estimateMinutes(position, recent, now, room.releases.policy.perMinute);
    reply.header('cache-control', 'no-store');
    // `QueueMoved` tells the first room's line only: the others' pages move by their answers.
    const moves = position > 0 && room.primary;
    return moves ? { position, estimated, ticket: served + position, served } : { position, estimated };
  });
}
