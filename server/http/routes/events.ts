import { EVENT_ROUTES } from '@waiting-room/streams/contract';
import { BOT_CHALLENGES } from '../../domain/bot-check/mode';
import type { Clock } from '../../domain/clock';
import { HttpError } from '../errors';
import { EventError, MAX_LIMIT, QUEUEING_METHODS, readEventFields, type EventFields } from '../../domain/events/event';
import type { DrawAnswer } from '../../domain/events/schedule';
import { CURSOR_PATTERN, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageOf } from '../../domain/events/pages';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import { builtPage } from './built-page';
import { verifyPageWriter } from '../verify-page';
import type { Room, Rooms } from '../../domain/rooms';
import type { SchemaTypedApp } from '../type-provider';

export interface EventRouteOptions {
  readonly rooms: Rooms;
  readonly clock: Clock;
}

const TIME = (field: string, code: string, what: string) =>
  failsWith(
    { type: 'string', format: 'date-time', description: `${what}: ISO 8601 with its zone, e.g. 2030-05-01T10:00:00Z.` },
    code,
    `"${field}" must be an ISO 8601 time with its zone, e.g. 2030-05-01T10:00:00Z.`,
  );
const NULLABLE_TIME = (field: string, code: string, what: string) => ({ ...TIME(field, code, what), type: ['string', 'null'] as const });
const LIMIT = (field: string, code: string, min: number, what: string) =>
  failsWith(
    { type: ['integer', 'null'], minimum: min, maximum: MAX_LIMIT, description: `${what}; null or absent keeps the room's.` },
    code,
    `"${field}" must be a whole number from ${min} to ${MAX_LIMIT}, or null for the room's.`,
  );

/** The fields an operator gives, as the admin API's schemas describe them (names as Cloudflare's). */
const FIELDS = {
  name: failsWith({ type: 'string', minLength: 1, maxLength: 100 }, 'bad_name', '"name" must be text of 1 to 100 characters, without control characters.'),
  prequeueStartTime: NULLABLE_TIME(
    'prequeueStartTime',
    'bad_prequeue_start_time',
    'From then on every protected request is held, and nobody admitted before the opening; null: no pre-queue',
  ),
  eventStartTime: TIME('eventStartTime', 'bad_event_start_time', 'The opening'),
  eventEndTime: TIME('eventEndTime', 'bad_event_end_time', "The end: the room's own settings again"),
  shuffleAtEventStart: failsWith(
    { type: 'boolean', description: 'Shuffle the pre-queue at the opening by a public draw (GET /events/{id}/draw). Needs a pre-queue.' },
    'bad_shuffle_at_event_start',
    '"shuffleAtEventStart" must be true or false.',
  ),
  queueingMethod: failsWith(
    { type: 'string', enum: [...QUEUEING_METHODS], description: 'fifo (default), random, passthrough or reject, while the event runs.' },
    'bad_queueing_method',
    `"queueingMethod" must be one of ${QUEUEING_METHODS.join(', ')}.`,
  ),
  activeLimit: LIMIT('activeLimit', 'bad_active_limit', 1, 'Sessions admitted at once while the event runs'),
  releasePerMinute: LIMIT('releasePerMinute', 'bad_release_per_minute', 0, 'Releases a minute while the event runs'),
  botChallenge: failsWith(
    {
      type: ['string', 'null'],
      enum: [...BOT_CHALLENGES, null],
      description: "The bot check from the pre-queue to the end: pow (a proof of work before a place enters the line) or off; null or absent keeps the room's.",
    },
    'bad_bot_challenge',
    `"botChallenge" must be one of ${BOT_CHALLENGES.join(', ')}, or null for the room's.`,
  ),
} as const;

const ROOM = failsWith({ type: 'string', description: 'The room; may be left out when there is one.' }, 'bad_room', '"room" must be a room\'s name.');
const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: "The event's id." } } } as const;

const EVENT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    room: { type: 'string' },
    name: { type: 'string' },
    prequeueStartTime: { type: 'string', nullable: true },
    eventStartTime: { type: 'string' },
    eventEndTime: { type: 'string' },
    shuffleAtEventStart: { type: 'boolean' },
    queueingMethod: { type: 'string', enum: [...QUEUEING_METHODS] },
    activeLimit: { type: 'integer', nullable: true },
    releasePerMinute: { type: 'integer', nullable: true },
    botChallenge: { type: 'string', enum: [...BOT_CHALLENGES], nullable: true, description: "The event's bot check; null: the room's." },
    phase: { type: 'string', enum: ['scheduled', 'prequeue', 'open', 'ended'] },
    entrants: { type: 'integer', nullable: true, description: "The pre-queue's places still in line." },
    commitment: { type: 'string', nullable: true, description: "SHA-256 of the draw's seed, from the start of the pre-queue." },
    drawn: { type: 'boolean' },
  },
} as const;
const TAGS = ['events'];

/**
 * Scheduled events under `/admin/events` (registered in the admin scope, so they need its access):
 * create, list, change and delete, each kept in the room's store so that every instance follows.
 * Bad input is a 400 in the error contract: a schema failure names the field; the rules between
 * fields (the opening before the pre-queue, the end before the opening, a shuffle without a
 * pre-queue, an overlap with another event of the room) have codes of their own.
 */
export async function eventAdminRoutes(app: SchemaTypedApp, options: EventRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  const statusOf = async (room: Room, id: string) => {
    await room.events.step();
    const status = (await room.events.statuses(clock.now())).find((event) => event.id === id);
    if (!status) throw new HttpError(404, 'unknown_event', 'There is no event with this id.');
    return status;
  };
  const roomWith = (id: string): Room => {
    const room = rooms.all.find((each) => each.events.events.some((event) => event.id === id));
    if (!room) throw new HttpError(404, 'unknown_event', 'There is no event with this id.');
    return room;
  };
  const checked = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      return rethrowChecked(error);
    }
  };

  app.post(
    '/events',
    {
      schema: {
        summary: 'Schedule an event',
        description:
          'Answers the event with its id. Refused (400) when the opening comes before the pre-queue, the end before the opening, it overlaps another event of the room, or a field is unknown; ' +
          '409 too_many_events when the room already keeps MAX_EVENTS_PER_ROOM events (ended ones included).',
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: failsWith(
          { type: 'object', additionalProperties: false, required: ['name', 'eventStartTime', 'eventEndTime'], properties: { ...FIELDS, room: ROOM } },
          'unknown_field',
          'Send the event as JSON: name, eventStartTime, eventEndTime, and optionally prequeueStartTime, shuffleAtEventStart, queueingMethod, activeLimit, releasePerMinute, botChallenge and room.',
        ),
        response: { 201: EVENT, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { room: name, ...given } = request.body;
      const room = rooms.named(name);
      const fields: EventFields = checked(() => readEventFields(given));
      const event = await room.events.create(fields).catch(rethrowChecked);
      return reply.code(201).send(await statusOf(room, event.id));
    },
  );

  app.get(
    '/events',
    {
      schema: {
        summary: 'The scheduled events, with where each stands, a page at a time',
        description:
          `In the rooms' order, each room's events by their opening. At most \`limit\` events (${DEFAULT_PAGE_SIZE} by default, at most ${MAX_PAGE_SIZE}); ` +
          'when there are more, a `Link` header gives the next page (`rel="next"`, with its `after` cursor). Without `limit` nor `after`, a room of at most ' +
          `${DEFAULT_PAGE_SIZE} events is listed whole, as before pages.`,
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: {
          type: 'object',
          properties: {
            room: ROOM,
            limit: failsWith(
              { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Events in the page.' },
              'bad_limit',
              `"limit" must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
            ),
            after: failsWith(
              { type: 'string', pattern: CURSOR_PATTERN.source, description: "The cursor the previous page's Link header gives." },
              'bad_cursor',
              '"after" must be the cursor a page of this list gave (its Link header).',
            ),
          },
        },
        response: { 200: { type: 'array', items: EVENT }, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { room, limit, after } = request.query;
      const chosen = room === undefined ? rooms.all : [rooms.named(room)];
      const { page, next } = checked(() =>
        pageOf(
          chosen.map((each) => ({ name: each.name, events: each.events.events })),
          limit,
          after,
        ),
      );
      reply.header('cache-control', 'no-store');
      if (next !== undefined) {
        const query = new URLSearchParams({ ...(room !== undefined && { room }), limit: String(limit), after: next });
        reply.header('link', `<${request.url.split('?')[0]}?${query}>; rel="next"`);
      }
      const now = clock.now();
      return (await Promise.all(page.map(({ room: name, event }) => rooms.named(name).events.statuses(now, [event])))).flat();
    },
  );

  app.patch(
    '/events/:id',
    {
      schema: {
        summary: 'Change a scheduled event',
        description:
          "The fields given replace the event's, null clearing an optional one, and the whole is checked again. Once its pre-queue (or opening) has begun, its start and its shuffle are fixed (409 event_begun).",
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ID_PARAMS,
        body: failsWith({ type: 'object', additionalProperties: false, properties: FIELDS }, 'unknown_field', 'Send the fields to change as JSON.'),
        response: { 200: EVENT, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const room = roomWith(id);
      await room.events.update(id, request.body).catch(rethrowChecked);
      return statusOf(room, id);
    },
  );

  app.delete(
    '/events/:id',
    {
      schema: {
        summary: 'Delete a scheduled event',
        description:
          'With its state and its draw; the room goes on under its own settings. An event with entrants still in line (its pre-queue under way, say) ' +
          "is deleted only with ?confirm=entrants (409 event_has_entrants otherwise): they keep their places in the line, in their order of arrival or the draw's once drawn.",
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: ID_PARAMS,
        querystring: {
          type: 'object',
          properties: {
            confirm: failsWith(
              { type: 'string', enum: ['entrants'], description: 'Delete the event even though it has entrants in line.' },
              'bad_confirm',
              '"confirm" must be "entrants".',
            ),
          },
        },
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { confirm } = request.query;
      await roomWith(id).events.remove(id, confirm === 'entrants');
      return reply.code(204).send();
    },
  );
}

/** An `EventError` from a check made inside a change of the store is a 400 like one made before. */
function rethrowChecked(error: unknown): never {
  if (error instanceof EventError) throw new HttpError(400, error.code, error.message);
  throw error;
}

export interface DrawRouteOptions {
  readonly rooms: Rooms;
  /** The built verify page (`build.mjs` writes it beside the waiting page). */
  readonly verifyPage: string;
}

/** The verify page loads only its own script and style, and reads the draw from this server. */
const VERIFY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
  'x-robots-tag': 'noindex',
};

/**
 * The public draw of each event (`GET /events/{id}/draw`, a `DrawRecord`) and the page that
 * checks it in the browser (`GET /events/{id}/verify`). The draw is anyone's to read, from any
 * site (CORS `*`): before the opening its commitment and the count of entrants, after it also the
 * seed and the order, which never change again and are cached as such.
 */
export async function drawRoutes(app: SchemaTypedApp, options: DrawRouteOptions): Promise<void> {
  const { rooms } = options;
  const page = builtPage(options.verifyPage, 'verify_page_not_built', 'The verify page');
  const inLanguage = verifyPageWriter();

  const drawOf = async (id: string): Promise<DrawAnswer> => {
    for (const room of rooms.all) {
      const answer = await room.events.draw(id);
      if (answer.kind !== 'unknown') return answer;
    }
    return { kind: 'unknown' };
  };

  app.get(
    EVENT_ROUTES.draw.replace('{id}', ':id'),
    {
      schema: {
        summary: "An event's draw, for anyone to verify",
        description:
          "From the start of the pre-queue: commitment (SHA-256 of the seed) and entrants (the count so far). Once drawn, also seed and order (every entrant's ticket, SHA-256 of their uuid, in draw order: sorted by HMAC-SHA256(seed, ticket)). See docs/drop-day.md.",
        tags: ['waiting page'],
        params: ID_PARAMS,
        response: {
          200: {
            type: 'object',
            properties: {
              event: { type: 'string' },
              name: { type: 'string' },
              prequeueStartTime: { type: 'string', nullable: true },
              eventStartTime: { type: 'string' },
              commitment: { type: 'string' },
              entrants: { type: 'integer' },
              seed: { type: 'string' },
              order: { type: 'array', items: { type: 'string' } },
            },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const answer = await drawOf(id);
      reply.header('access-control-allow-origin', '*');
      if (answer.kind === 'unknown') throw new HttpError(404, 'unknown_event', 'There is no event with this id.');
      if (answer.kind === 'unshuffled') throw new HttpError(404, 'no_draw', 'This event has no draw: its pre-queue goes in order of arrival.');
      if (answer.kind === 'not_started')
        throw new HttpError(404, 'draw_not_started', `The draw's commitment is published when the pre-queue starts, at ${answer.at}.`);
      if (answer.kind === 'pending') return reply.header('cache-control', 'no-store').send(answer.record);
      // Hex digits compress to about half: a draw of 100,000 is some 6.6 MB as it is.
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
      reply.header('cache-control', 'public, max-age=86400, immutable').header('vary', 'Accept-Encoding').type('application/json; charset=utf-8');
      if (gzip) reply.header('content-encoding', 'gzip');
      return reply.send(gzip ? answer.gzip : answer.json);
    },
  );

  app.get(
    EVENT_ROUTES.verify.replace('{id}', ':id'),
    { schema: { summary: "The page that verifies an event's draw in the browser (HTML)", tags: ['waiting page'], params: ID_PARAMS } },
    async (request, reply) => {
      const html = await page();
      // In the visitor's language, chosen as for every page: their pick, else their browser's.
      const language = app.languages.choose({ headers: request.headers });
      return reply.headers(VERIFY_HEADERS).header('vary', 'Accept-Language, Cookie').type('text/html; charset=utf-8').send(inLanguage(html, language));
    },
  );
}
