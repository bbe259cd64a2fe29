import type { FastifyInstance } from 'fastify';
import { fieldsOf, textField } from '../body';
import type { Clock } from '../clock';
import { HttpError } from '../errors';
import { estimateMinutes } from '../estimate';
import { ROUTES } from '../page-config';
import type { Releases } from '../releases';
import { checkCsrf, requireSession } from '../session';
import { RecentReleasesCache } from '../store/recent-releases-cache';
import type { QueueStore } from '../store/types';

export interface QueueRouteOptions {
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly releases: Releases;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The waiting page's two named routes: queue_request and queue_info. */
export async function queueRoutes(app: FastifyInstance, options: QueueRouteOptions): Promise<void> {
  const { store, clock, releases } = options;
  // Line-wide, so read once per move of the line for every poll of this instance, not per poll.
  const recentReleases = new RecentReleasesCache(store);

  /** "I am listening": keeps the place alive, and sends the release event again if it was missed. */
  app.post(ROUTES.queue_request, async (request, reply) => {
    const fields = fieldsOf(request);
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
    const now = clock.now();
    const place = UUID.test(uuid) ? await store.position(uuid, now) : undefined;
    if (!place) throw new HttpError(404, 'unknown_uuid', 'No place in line has this uuid.');
    const { position, served } = place;
    const recent = position > 0 ? await recentReleases.read(served) : [];
    const estimated = estimateMinutes(position, recent, now, releases.policy.perMinute);
    reply.header('cache-control', 'no-store');
    return position > 0 ? { position, estimated, ticket: served + position, served } : { position, estimated };
  });
}
