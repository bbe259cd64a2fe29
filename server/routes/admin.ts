import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock';
import { HttpError } from '../errors';
import type { Room, Rooms } from '../rooms';
import { sameText } from '../realtime/signature';
import type { ErrorLog } from '../sink/error-log';
import type { HeldBodyTally } from '../gateway/held-body';

export interface AdminOptions {
  readonly token: string;
  readonly rooms: Rooms;
  readonly clock: Clock;
  readonly errors: ErrorLog;
  readonly heldBodies: HeldBodyTally;
}

/** Most visitors one admin call may release. */
const MAX_RELEASE = 10_000;

/**
 * The admin API under `/admin`, for a bearer `ADMIN_TOKEN`: stats, release now (optionally
 * without publishing the event), pause and resume the release loop, and the reported errors.
 * Each call acts on the room `?room=` names (or `"room"` in a JSON body), the first room when
 * none is named; `GET /admin/rooms` lists them all.
 */
export async function adminRoutes(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { rooms, clock } = options;
  const roomOf = (request: FastifyRequest): Room => {
    const body = request.body as Record<string, unknown> | undefined;
    const named = (request.query as Record<string, unknown>).room ?? (typeof body === 'object' && body !== null ? body.room : undefined);
    return rooms.named(named);
  };
  const statsOf = async (room: Room) => {
    const stats = await room.store.stats(clock.now());
    return {
      waiting: stats.waiting,
      active: stats.active,
      released: stats.released,
      releasePerMinute: room.releases.policy.perMinute,
      activeLimit: room.limits.activeLimit,
      paused: stats.paused,
    };
  };

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!sameText(token, options.token)) {
      reply.header('www-authenticate', 'Bearer realm="waiting-room admin"');
      throw new HttpError(401, 'unauthorized', 'Send the admin token as "Authorization: Bearer <token>".');
    }
  });

  app.get('/stats', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // The bodies this instance has held, whatever the room.
    return { ...(await statsOf(roomOf(request))), heldBodies: options.heldBodies.snapshot() };
  });

  app.get('/rooms', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return Promise.all(rooms.all.map(async (room) => ({ name: room.name, ...(await statsOf(room)) })));
  });

  app.post('/release', async (request) => {
    const { count, silent } = releaseRequest(request.body);
    const released = await roomOf(request).releases.releaseNext(count, silent);
    return { released: released.map((entry) => entry.uuid), silent };
  });

  app.post('/pause', async (request) => {
    await roomOf(request).store.setPaused(true);
    return { paused: true };
  });

  app.post('/resume', async (request) => {
    await roomOf(request).store.setPaused(false);
    return { paused: false };
  });

  app.get('/errors', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return options.errors.list();
  });
}

function releaseRequest(body: unknown): { count: number; silent: boolean } {
  if (body === undefined || body === null) return { count: 1, silent: false };
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, 'bad_request', 'Send {"count": n}, optionally with "silent": true.');
  }
  const { count = 1, silent = false } = body as Record<string, unknown>;
  if (Object.keys(body).some((key) => !['count', 'silent', 'room'].includes(key))) {
    throw new HttpError(400, 'bad_request', 'Send {"count": n}, optionally with "silent" and "room".');
  }
  const asNumber = typeof count === 'string' && /^\d+$/.test(count) ? Number(count) : count;
  if (typeof asNumber !== 'number' || !Number.isInteger(asNumber) || asNumber < 1 || asNumber > MAX_RELEASE) {
    throw new HttpError(400, 'bad_count', `"count" must be a whole number from 1 to ${MAX_RELEASE}.`);
  }
  if (typeof silent !== 'boolean' && silent !== 'true' && silent !== 'false') {
    throw new HttpError(400, 'bad_silent', '"silent" must be true or false.');
  }
  return { count: asNumber, silent: silent === true || silent === 'true' };
}
