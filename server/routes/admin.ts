import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock';
import { HttpError } from '../errors';
import type { Releases } from '../releases';
import { sameText } from '../realtime/signature';
import type { ErrorLog } from '../sink/error-log';
import type { QueueStore } from '../store/types';

export interface AdminOptions {
  readonly token: string;
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly releases: Releases;
  readonly errors: ErrorLog;
}

/** Most visitors one admin call may release. */
const MAX_RELEASE = 10_000;

/**
 * The admin API under `/admin`, for a bearer `ADMIN_TOKEN`: stats, release now (optionally
 * without publishing the event), pause and resume the release loop, and the reported errors.
 */
export async function adminRoutes(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { store, clock, releases } = options;

  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!sameText(token, options.token)) {
      reply.header('www-authenticate', 'Bearer realm="waiting-room admin"');
      throw new HttpError(401, 'unauthorized', 'Send the admin token as "Authorization: Bearer <token>".');
    }
  });

  app.get('/stats', async (_request, reply) => {
    const stats = await store.stats(clock.now());
    reply.header('cache-control', 'no-store');
    return {
      waiting: stats.waiting,
      active: stats.active,
      released: stats.released,
      releasePerMinute: releases.policy.perMinute,
      paused: stats.paused,
    };
  });

  app.post('/release', async (request) => {
    const { count, silent } = releaseRequest(request.body);
    const released = await releases.releaseNext(count, silent);
    return { released: released.map((entry) => entry.uuid), silent };
  });

  app.post('/pause', async () => {
    await store.setPaused(true);
    return { paused: true };
  });

  app.post('/resume', async () => {
    await store.setPaused(false);
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
  const asNumber = typeof count === 'string' && /^\d+$/.test(count) ? Number(count) : count;
  if (typeof asNumber !== 'number' || !Number.isInteger(asNumber) || asNumber < 1 || asNumber > MAX_RELEASE) {
    throw new HttpError(400, 'bad_count', `"count" must be a whole number from 1 to ${MAX_RELEASE}.`);
  }
  if (typeof silent !== 'boolean' && silent !== 'true' && silent !== 'false') {
    throw new HttpError(400, 'bad_silent', '"silent" must be true or false.');
  }
  return { count: asNumber, silent: silent === true || silent === 'true' };
}
