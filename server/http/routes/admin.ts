import type { Clock } from '../../domain/clock';
import type { Room, Rooms } from '../../domain/rooms';
import type { ErrorLog } from '../sink/error-log';
import type { HeldBodyTally } from '../gateway/held-body';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import { requireAdminAccess, type AdminAccessOptions } from '../admin/access';
import { adminConsoleRoutes, type AdminConsoleOptions } from './admin-console';
import { ADMISSION_VIEW_SCHEMA } from '../../domain/admission/view';
import { eventAdminRoutes } from './events';
import { reportRoutes } from './report';
import { messageAdminRoutes } from './admin-message';
import { codeAdminRoutes } from './codes';
import { KDF } from '../../domain/bot-check/challenge';
import { MAX_DIFFICULTY } from '../../process/config';
import type { SchemaTypedApp } from '../type-provider';

export interface AdminOptions extends AdminConsoleOptions {
  readonly access: AdminAccessOptions;
  readonly rooms: Rooms;
  readonly clock: Clock;
  readonly errors: ErrorLog;
  readonly heldBodies: HeldBodyTally;
}

/** Most visitors one admin call may release. */
const MAX_RELEASE = 10_000;
/** Largest limit an operator may set, as the configuration allows. */
const MAX_LIMIT = 1_000_000;

const ROOM = failsWith({ type: 'string', description: 'The room; the first when absent.' }, 'bad_room', '"room" must be a room\'s name.');
const ROOM_QUERY = { type: 'object', properties: { room: ROOM } } as const;
const TAGS = ['admin'];

/** The schema of a call on one room: its summary, the admin security and `?room=`, and `extra`. */
const roomCall = <T extends object>(summary: string, extra: T) => ({ summary, tags: TAGS, security: ADMIN_SECURITY, querystring: ROOM_QUERY, ...extra });

const STATS = {
  type: 'object',
  properties: {
    waiting: { type: 'integer', description: 'Places in line now.' },
    pending: { type: 'integer', description: 'Places waiting for their bot check, out of the line.' },
    active: { type: 'integer', description: 'Sessions admitted now.' },
    released: { type: 'integer', description: 'Visitors released since the line began.' },
    arrived: { type: 'integer', description: 'Places taken since the line began.' },
    releasePerMinute: { type: 'integer', description: "Releases a minute in force (the operator's, when set)." },
    activeLimit: { type: 'integer', description: "Sessions admitted at once in force (the operator's, when set)." },
    configured: {
      type: 'object',
      description: 'The configured limits, in force where the operator set none.',
      properties: { releasePerMinute: { type: 'integer' }, activeLimit: { type: 'integer' } },
    },
    paused: { type: 'boolean' },
    codes: {
      type: 'object',
      description: 'Priority codes issued for the room (POST /admin/codes) and used of those, since the line began.',
      properties: { issued: { type: 'integer' }, used: { type: 'integer' } },
    },
  },
} as const;

const LIMIT = (min: number, field: string) =>
  failsWith(
    { type: ['integer', 'null'], minimum: min, maximum: MAX_LIMIT, description: 'A whole number; null goes back to the configured value.' },
    `bad_${field === 'activeLimit' ? 'active_limit' : 'release_per_minute'}`,
    `"${field}" must be a whole number from ${min} to ${MAX_LIMIT}, or null for the configured value.`,
  );

/**
 * The admin API under `/admin`, for a bearer `ADMIN_TOKEN` or the console's session: stats,
 * release now (optionally without publishing the event), pause and resume the release loop,
 * the limits, the admission in force and why (with pin and unpin for adaptive rooms), the reported
 * errors, and the console (`admin-console.ts`). Each call acts on the
 * room `?room=` names (or `"room"` in a JSON body), the first room when none is named;
 * `GET /admin/rooms` lists them all.
 */
export async function adminRoutes(app: SchemaTypedApp, options: AdminOptions): Promise<void> {
  const { rooms, clock } = options;
  const roomOf = (request: { readonly query: { readonly room?: string }; readonly body?: unknown }): Room => {
    // The schema has checked the body's "room" is a string where the route takes one.
    const body = request.body;
    return rooms.named(request.query.room ?? (typeof body === 'object' && body !== null && 'room' in body ? body.room : undefined));
  };
  const statsOf = async (room: Room) => {
    const [stats, codes] = await Promise.all([room.store.stats(clock.now()), room.store.codeCounts()]);
    const { policy } = room.releases;
    const { configured } = room;
    return {
      waiting: stats.waiting,
      pending: stats.pending,
      active: stats.active,
      released: stats.released,
      arrived: stats.arrived,
      // Adaptive admission sets fractions of a release a minute: whole ones here, the exact one in /admission.
      releasePerMinute: Math.round(policy.perMinute),
      activeLimit: policy.activeLimit,
      configured: { releasePerMinute: configured.perMinute, activeLimit: configured.activeLimit },
      paused: stats.paused,
      codes,
    };
  };

  requireAdminAccess(app, options.access);
  // Options without the prefix this scope already has.
  await app.register(adminConsoleRoutes, { ...options, prefix: '' });
  await app.register(eventAdminRoutes, { rooms, clock, prefix: '' });
  await app.register(reportRoutes, { rooms, clock, prefix: '' });
  await app.register(messageAdminRoutes, { rooms, prefix: '' });
  await app.register(codeAdminRoutes, { rooms, clock, prefix: '' });

  app.get(
    '/stats',
    {
      schema: roomCall('The line of one room', {
        response: {
          200: {
            ...STATS,
            properties: {
              ...STATS.properties,
              heldBodies: {
                type: 'object',
                description: 'The request bodies this instance has held since it started, and those refused for their size.',
                properties: { count: { type: 'integer' }, bytes: { type: 'integer' }, refused: { type: 'integer' } },
              },
            },
          },
          ...errorResponses(401, 404),
        },
      }),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // The bodies this instance has held, whatever the room.
      return { ...(await statsOf(roomOf(request))), heldBodies: options.heldBodies.snapshot() };
    },
  );

  app.get(
    '/rooms',
    {
      schema: {
        summary: 'The line of every room',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: { 200: { type: 'array', items: { ...STATS, properties: { name: { type: 'string' }, ...STATS.properties } } }, ...errorResponses(401) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return Promise.all(rooms.all.map(async (room) => ({ name: room.name, ...(await statsOf(room)) })));
    },
  );

  app.post(
    '/release',
    {
      // No body at all asks for the defaults (one visitor, with its events).
      preValidation: async (request) => {
        // Before validation, so not yet of the schema's type: Fastify fills in its defaults next.
        request.body ??= {} as typeof request.body;
      },
      schema: roomCall('Release the next visitors now, whatever the limits', {
        body: failsWith(
          {
            type: 'object',
            additionalProperties: false,
            properties: {
              count: failsWith(
                { type: 'integer', minimum: 1, maximum: MAX_RELEASE, default: 1 },
                'bad_count',
                `"count" must be a whole number from 1 to ${MAX_RELEASE}.`,
              ),
              silent: failsWith(
                { type: 'boolean', default: false, description: 'Release without sending RequestUnqueud or QueueMoved.' },
                'bad_silent',
                '"silent" must be true or false.',
              ),
              room: ROOM,
            },
          },
          'bad_request',
          'Send {"count": n}, optionally with "silent" and "room".',
        ),
        response: {
          200: { type: 'object', properties: { released: { type: 'array', items: { type: 'string' } }, silent: { type: 'boolean' } } },
          ...errorResponses(400, 401, 403, 404),
        },
      }),
    },
    async (request) => {
      const { count, silent } = request.body;
      const released = await roomOf(request).releases.releaseNext(count, silent);
      return { released: released.map((entry) => entry.uuid), silent };
    },
  );

  const pausing = (paused: boolean) => ({
    schema: roomCall(paused ? 'Stop the release loop' : 'Restart the release loop', {
      response: { 200: { type: 'object', properties: { paused: { type: 'boolean' } } }, ...errorResponses(401, 403, 404) },
    }),
  });
  app.post('/pause', pausing(true), async (request) => {
    await roomOf(request).store.setPaused(true);
    return { paused: true };
  });
  app.post('/resume', pausing(false), async (request) => {
    await roomOf(request).store.setPaused(false);
    return { paused: false };
  });

  app.post(
    '/limits',
    {
      schema: roomCall('Change the active limit and the release rate', {
        description:
          'Kept in the store: every instance follows within a second, and they last as long as the line does (Redis, or STATE_FILE). A field left out is unchanged; null goes back to the configured value.',
        body: failsWith(
          {
            type: 'object',
            additionalProperties: false,
            properties: { activeLimit: LIMIT(1, 'activeLimit'), releasePerMinute: LIMIT(0, 'releasePerMinute'), room: ROOM },
          },
          'bad_request',
          'Send {"activeLimit": n, "releasePerMinute": n}, either of them, optionally with "room".',
        ),
        response: { 200: STATS, ...errorResponses(400, 401, 403, 404) },
      }),
    },
    async (request) => {
      const { activeLimit, releasePerMinute } = request.body;
      const room = roomOf(request);
      await room.operator.change({ activeLimit, perMinute: releasePerMinute });
      return statsOf(room);
    },
  );

  const botCheckOf = async (room: Room) => {
    const { configured } = room.botCheck;
    const now = clock.now();
    return {
      botChallenge: room.botCheck.mode(now),
      difficulty: await room.botCheck.difficulty(),
      configured: { botChallenge: configured.mode, difficulty: configured.difficulty },
      pending: (await room.store.stats(now)).pending,
      placesPerAddress: options.config.botCheck.placesPerAddress,
      kdf: KDF,
    };
  };
  const BOT_CHECK = {
    type: 'object',
    properties: {
      botChallenge: { type: 'string', enum: ['off', 'pow'], description: 'What a visitor held now is asked: nothing, or a proof of work.' },
      difficulty: {
        type: 'integer',
        description: "The most key derivations a solution takes, in force (the operator's, when set); the counter is drawn from its upper half.",
      },
      configured: {
        type: 'object',
        description: "The room's configuration (BOT_CHALLENGE or its botChallenge, BOT_CHALLENGE_DIFFICULTY).",
        properties: { botChallenge: { type: 'string' }, difficulty: { type: 'integer' } },
      },
      pending: { type: 'integer', description: 'Places waiting for their bot check now.' },
      placesPerAddress: { type: 'integer', description: 'PLACES_PER_ADDRESS (0: no cap).' },
      kdf: {
        type: 'object',
        description: 'What each try derives: ALTCHA algorithm, cost (scrypt N), memoryCost (r), parallelism (p), keyLength.',
        properties: {
          algorithm: { type: 'string' },
          cost: { type: 'integer' },
          memoryCost: { type: 'integer' },
          parallelism: { type: 'integer' },
          keyLength: { type: 'integer' },
        },
      },
    },
  } as const;

  app.get('/bot-check', { schema: roomCall("The room's bot check", { response: { 200: BOT_CHECK, ...errorResponses(401, 404) } }) }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return botCheckOf(roomOf(request));
  });

  app.post(
    '/bot-check',
    {
      schema: roomCall("Change the bot check's difficulty", {
        description:
          'Kept in the store: every instance follows within a second, for the challenges it issues from then on (a challenge already issued keeps its own). null goes back to BOT_CHALLENGE_DIFFICULTY.',
        body: failsWith(
          {
            type: 'object',
            additionalProperties: false,
            required: ['difficulty'],
            properties: {
              difficulty: failsWith(
                {
                  type: ['integer', 'null'],
                  minimum: 1,
                  maximum: MAX_DIFFICULTY,
                  description: 'The most key derivations a solution takes; null: the configured one.',
                },
                'bad_difficulty',
                `"difficulty" must be a whole number from 1 to ${MAX_DIFFICULTY}, or null for the configured one.`,
              ),
              room: ROOM,
            },
          },
          'bad_request',
          'Send {"difficulty": n}, optionally with "room".',
        ),
        response: { 200: BOT_CHECK, ...errorResponses(400, 401, 403, 404) },
      }),
    },
    async (request) => {
      const { difficulty } = request.body;
      const room = roomOf(request);
      await room.botCheck.changeDifficulty(difficulty);
      return botCheckOf(room);
    },
  );

  app.get(
    '/admission',
    {
      schema: roomCall('The admission in force, and why', {
        description:
          "Fixed: the rate and the limit in force (the configured ones, or the operator's from /admin/limits). Adaptive: those the controller set below them as ceilings, " +
          "the signals of its last decision (the origin's answers to admitted requests, every instance together), the decision and its reason, and the pin.",
        response: { 200: ADMISSION_VIEW_SCHEMA, ...errorResponses(401, 404) },
      }),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return roomOf(request).admission.view();
    },
  );

  const PIN = (min: number, field: string) =>
    failsWith({ type: 'integer', minimum: min, maximum: MAX_LIMIT }, 'bad_pin', `"${field}" must be a whole number from ${min} to ${MAX_LIMIT}.`);
  app.post(
    '/admission/pin',
    {
      // No body at all pins both values as they are.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: roomCall('Pin the release rate and the active limit of an adaptive room', {
        description:
          'The controller leaves them alone until unpinned; every instance follows at its next step. A value left out is pinned as it is; both stay within the ceilings. 409 for a fixed room.',
        body: failsWith(
          {
            type: 'object',
            additionalProperties: false,
            properties: { releasePerMinute: PIN(0, 'releasePerMinute'), activeLimit: PIN(1, 'activeLimit'), room: ROOM },
          },
          'bad_request',
          'Send {"releasePerMinute": n, "activeLimit": n}; either may be left out to pin the value in force.',
        ),
        response: { 200: ADMISSION_VIEW_SCHEMA, ...errorResponses(400, 401, 403, 404, 409) },
      }),
    },
    async (request) => {
      const { releasePerMinute, activeLimit } = request.body;
      return roomOf(request).admission.pin({ perMinute: releasePerMinute, activeLimit });
    },
  );

  app.post(
    '/admission/unpin',
    {
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: roomCall('Hand the rate back to the adaptive controller', {
        description: 'It goes on from the pinned rate. 409 for a fixed room.',
        body: failsWith({ type: 'object', additionalProperties: false, properties: { room: ROOM } }, 'bad_request', 'Send nothing, or {"room": name}.'),
        response: { 200: ADMISSION_VIEW_SCHEMA, ...errorResponses(400, 401, 403, 404, 409) },
      }),
    },
    async (request) => roomOf(request).admission.unpin(),
  );

  app.get(
    '/errors',
    {
      schema: {
        summary: 'The last reports the local error sink received',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                message: { type: 'string' },
                level: { type: 'string' },
                release: { type: 'string', nullable: true },
                receivedAt: { type: 'string' },
                cut: { type: 'boolean' },
              },
            },
          },
          ...errorResponses(401),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return options.errors.list();
    },
  );
}
