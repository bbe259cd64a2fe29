import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid, MOVED_AWAY, PENDING_STATUS, ROUTES, UNKNOWN_UUID, UUID_PATTERN } from '@waiting-room/streams/contract';
import type { BotChallenges } from '../../domain/bot-check/challenge';
import type { Clock } from '../../domain/clock';
import { HttpError } from '../errors';
import { estimateMinutes } from '../../domain/estimate';
import { errorResponses, failsWith } from '../openapi';
import type { Room, Rooms } from '../../domain/rooms';
import { checkCsrf, requireSession } from '../session';
import { TurnBudget } from '../turn-budget';
import type { SchemaTypedApp } from '../type-provider';

export interface QueueRouteOptions {
  readonly rooms: Rooms;
  readonly clock: Clock;
  /** Checks the bot check's solutions. */
  readonly challenges: BotChallenges;
  /** Told how long each queue_info answer took (the metrics). */
  readonly answered?: (ms: number) => void;
  /** Bounds the queue_info answers written in one turn of the event loop; one of the route's own by default. */
  readonly budget?: TurnBudget;
}

const ROOM_QUERY = {
  type: 'object',
  properties: { room: failsWith({ type: 'string', description: 'The room; the first when absent.' }, 'bad_room', '"room" must be a room\'s name.') },
} as const;
const TAGS = ['waiting page'];
/** Longest bot-check payload read: a solved challenge of this server's is about 1 KB. */
const MAX_ALTCHA_LENGTH = 4096;

/** queue_request's fields, JSON or form. `_token` is checked before these (419 comes first). */
const QUEUE_REQUEST_BODY = failsWith(
  {
    type: 'object',
    required: ['uuid'],
    properties: {
      _token: { type: 'string', description: "The session's CSRF token (419 when wrong)." },
      user_id: { type: ['integer', 'string', 'null'], description: 'The user the place was held for; 0 or empty when anonymous (403 when another).' },
      uuid: failsWith(
        { type: 'string', pattern: UUID_PATTERN.source, description: 'The place in line.' },
        'bad_uuid',
        "The uuid field must be 1 to 100 letters, digits, '-' or '_'.",
      ),
      altcha: failsWith(
        {
          type: 'string',
          maxLength: MAX_ALTCHA_LENGTH,
          description:
            "The bot check's solution, while the place is pending: the base64 of {challenge, solution}, as ALTCHA's widget sends it. Ignored once the place is in line.",
        },
        'bad_altcha',
        `The altcha field must be the base64 of {challenge, solution}, at most ${MAX_ALTCHA_LENGTH} characters.`,
      ),
    },
  },
  'bad_request',
  'Send the fields as JSON or as a form.',
);

/** The waiting page's two named routes: queue_request and queue_info. */
export async function queueRoutes(app: SchemaTypedApp, options: QueueRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  const budget = options.budget ?? new TurnBudget(undefined, undefined, (error) => app.log.error({ err: error }, 'queue_info answer failed'));
  /**
   * Writes a queue_info answer within this turn's budget, or in a later turn: a burst of polls
   * read in one turn (hundreds at once after a stall, or a Redis batch's positions) is answered
   * a slice at a time, timers and sockets served in between. The write itself is in the budget:
   * serialising, the reply's hooks and the socket's write are most of an answer's cost.
   */
  const answer = (reply: FastifyReply, body: unknown): FastifyReply => {
    budget.run(() => {
      reply.send(body);
    });
    // Fastify waits for the reply sent (now or later) when the handler returns it.
    return reply;
  };
  /** The room a call names (`?room=`, which a page of any room but the first carries). */
  const roomOf = (request: { readonly query: { readonly room?: string } }): Room => rooms.named(request.query.room);

  /** "I am listening": keeps the place alive, and sends the release event again if it was missed. */
  app.post(
    ROUTES.queue_request,
    {
      schema: {
        summary: 'queue_request: "I am listening"',
        description: 'Keeps the place alive, and sends the release event again when the visitor was already released.',
        tags: TAGS,
        querystring: ROOM_QUERY,
        body: QUEUE_REQUEST_BODY,
        response: {
          202: { type: 'object', properties: { uuid: { type: 'string' }, state: { type: 'string', enum: ['pending', 'waiting', 'released'] } } },
          ...errorResponses(400, 403, 404, 419),
        },
      },
      // The session and its token come before the fields: a visitor whose session is gone is told so (419) first.
      preValidation: async (request) => {
        const fields = request.body;
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return;
        checkCsrf(requireSession(request), (fields as { _token?: unknown })._token);
      },
    },
    async (request, reply) => {
      const fields = request.body;
      const room = roomOf(request);
      const { store, releases } = room;
      const session = requireSession(request);
      const uuid = fields.uuid;
      const entry = await store.get(uuid);
      if (!entry) throw new HttpError(404, UNKNOWN_UUID, 'No place in line has this uuid.');
      if (entry.sessionId !== session.id) {
        throw new HttpError(403, 'not_your_place', 'This place in line belongs to another visitor.');
      }
      const userId = fields.user_id;
      if (userId !== undefined && userId !== null && Number(userId || 0) !== entry.userId) {
        throw new HttpError(403, 'wrong_user', 'user_id is not the user this place was held for.');
      }
      const now = clock.now();
      await store.touch(uuid, now);
      if (entry.state === 'pending') return reply.code(202).send({ uuid, state: await enterLine(room, uuid, fields.altcha, now) });
      if (entry.state === 'released') await releases.announce(entry);
      return reply.code(202).send({ uuid, state: entry.state });
    },
  );

  /**
   * The bot check's last step: a pending place whose solution is verified enters the line, at the
   * back. A refused solution drops the place, so that the page learns it from its next queue_info
   * (404) and a held GET joins again with a fresh challenge; a missing one leaves it pending.
   */
  async function enterLine(room: Room, uuid: string, altcha: string | undefined, now: number) {
    if (altcha === undefined) {
      throw new HttpError(403, 'altcha_required', 'This place waits for its bot check: send the solution as the altcha field.');
    }
    const verdict = await options.challenges.verify(altcha, { uuid, room: room.name });
    void room.report.botCheck(verdict.verified);
    if (!verdict.verified) {
      await room.store.dropPending(uuid);
      throw new HttpError(403, 'altcha_refused', `The bot check's solution is refused (${verdict.refusal}); load the page again for a new challenge.`);
    }
    const state = await room.store.enterLine(uuid, now);
    if (!state) throw new HttpError(404, UNKNOWN_UUID, 'No place in line has this uuid.');
    if (state === 'waiting') void enteredReport(room, uuid, now);
    return state;
  }

  /** A place that solved its bot check enters the report: at its position now (the report keeps the first arrival only). */
  async function enteredReport(room: Room, uuid: string, now: number): Promise<void> {
    const place = await room.store.placeInLine(uuid, now).catch(() => undefined);
    if (place) await room.report.arrived(place.entry, place.position, place.served, now);
  }

  /**
   * The visitor's position (0 once released) and the estimated wait in minutes. A waiting
   * visitor's answer also carries `ticket` and `served` (an extension: `position = ticket -
   * served`), so that the page can move them up on each `QueueMoved` without asking again.
   * `served` counts the places that have left the head of the line, and `ticket` is the
   * visitor's place counted from the start of the line as it stands now (`served + position`):
   * k more leaving the head move them up by k, and places gone from the middle show in the next
   * answer's smaller position.
   */
  app.get(
    ROUTES.queue_info.replace('{uuid}', ':uuid'),
    {
      schema: {
        summary: 'queue_info: the position and the estimated wait',
        tags: TAGS,
        params: { type: 'object', properties: { uuid: { type: 'string', description: 'The place in line (404 for any other value).' } } },
        querystring: ROOM_QUERY,
        response: {
          200: {
            type: 'object',
            required: ['position', 'estimated'],
            properties: {
              position: { type: 'integer', description: '0 once released; 1 for the head of the line.' },
              estimated: { type: 'integer', description: 'Minutes.' },
              ticket: { type: 'integer', description: 'An extension: position = ticket - served.' },
              served: { type: 'integer' },
              message: {
                type: 'object',
                description: "An extension: the operator's message to those waiting, once one was ever set (as QueueMessage carries it).",
                properties: {
                  version: { type: 'integer' },
                  text: { type: 'string' },
                  texts: { type: 'object', additionalProperties: { type: 'string' } },
                  locale: { type: 'string' },
                },
              },
              opensIn: {
                type: 'integer',
                description:
                  "An extension: the visitor waits in a scheduled event's pre-queue, which opens in this many ms (0: drawing). No position yet: `position` is the most it can be.",
              },
            },
          },
          [PENDING_STATUS]: {
            type: 'object',
            description: 'The place waits for its bot check: no position yet (neither released nor lost). Ask again.',
            properties: { pending: { type: 'boolean', enum: [true] } },
          },
          ...errorResponses(404, 410),
        },
      },
      ...(options.answered && {
        onResponse: (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
          options.answered?.(reply.elapsedTime);
          done();
        },
      }),
    },
    async (request, reply) => {
      const { uuid } = request.params;
      const room = roomOf(request);
      const now = clock.now();
      const place = isUuid(uuid) ? await room.store.position(uuid, now) : undefined;
      if (!place) {
        // Asked only of an unknown uuid: the polls of places in line never pay for it.
        if (isUuid(uuid) && (await room.store.movedAway(uuid, now))) {
          throw new HttpError(410, MOVED_AWAY, 'This place moved to another browser (continue on another device); it goes on there.');
        }
        throw new HttpError(404, UNKNOWN_UUID, 'No place in line has this uuid.');
      }
      reply.header('cache-control', 'no-store');
      if (place.pending) return answer(reply.code(PENDING_STATUS), { pending: true });
      const { position, served } = place;
      // In an event's pre-queue there is no position yet; with its random queueing, no rank.
      await room.events.ready(now);
      const policy = room.releases.policy;
      const perMinute = policy.perMinute;
      // The operator's message, read at most once a second per instance: a page that missed its push hears of it here.
      const message = await room.message.shown();
      const told = message && { message };
      const event = room.events.answerFor(place, now, perMinute);
      if (event) return answer(reply, { ...event, ...told });
      // Line-wide, so read once per move of the line for every poll of this instance, not per poll.
      const recent = position > 0 ? await room.recentReleases.read(served) : [];
      const estimated = estimateMinutes(position, recent, now, perMinute, policy);
      // Each room's `QueueMoved` (on its own channel) moves its pages from this ticket.
      return answer(reply, position > 0 ? { position, estimated, ticket: served + position, served, ...told } : { position, estimated, ...told });
    },
  );
}
