import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isUuid, MOVED_AWAY, UNKNOWN_UUID } from '@waiting-room/streams/contract';
import type { Clock } from '../../domain/clock';
import type { Room, Rooms } from '../../domain/rooms';
import type { ServerConfig } from '../../process/config';
import type { HandoffRefusal } from '../../store/types';
import { HttpError } from '../errors';
import { errorResponses, failsWith } from '../openapi';
import { HANDOFF_ROUTE, pageConfigFor } from '../page-config';
import { queueInfoPreload, type WaitingPage } from '../page';
import { originOf } from '../request-origin';
import { pagePolicy } from '../security-headers';
import { adoptSession, checkCsrf, requireSession } from '../session';
import { sendWaitingPage } from '../gateway/gate';
import type { SchemaTypedApp } from '../type-provider';

/**
 * "Continue on another device": the page asks for a link (`HANDOFF_ROUTE`), and the browser that
 * opens it (`/queue/handoff/{token}`) takes the place, once, and is sent to its waiting page
 * (`/queue/place/{uuid}`). The store keeps the links (by their token's digest), so that any
 * instance honours them. docs/places.md#onto-another-device.
 */
const OPEN_ROUTE = '/queue/handoff/:token';
const PLACE_ROUTE = '/queue/place/:uuid';

export interface HandoffRouteOptions {
  readonly config: Pick<ServerConfig, 'handoffSeconds' | 'host'>;
  readonly rooms: Rooms;
  readonly clock: Clock;
  /** Renders a waiting page: the config's other settings (`pageConfigFor`). */
  readonly serverConfig: ServerConfig;
  readonly page: WaitingPage;
  readonly roomPages?: ReadonlyMap<string, WaitingPage>;
  readonly port: () => number;
}

const TAGS = ['waiting page'];
/** 32 random bytes, base64url: a token nobody guesses, short enough for a QR code a phone reads at a glance. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const ROOM_QUERY = { type: 'object', properties: { room: { type: 'string', maxLength: 64, description: 'The room; the first when absent.' } } } as const;

/** What a browser opening a link that moved nothing is told: the status and the code (`error-page.ts` explains each). */
const REFUSALS: Record<HandoffRefusal, { readonly status: number; readonly message: string }> = {
  used: { status: 410, message: 'This link was already opened: a link moves a place once.' },
  expired: { status: 410, message: 'This link is too old: ask for a new one on the device that waits.' },
  unknown: { status: 404, message: 'This link is not one of this waiting room, or too old to be known.' },
  gone: { status: 410, message: 'The place this link was made for moved already, had its turn, or left the line.' },
};

/** The store's name for a link: its token's digest, so that what the store holds opens nothing. */
const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const roomQuery = (room: Room, rooms: Rooms) => (room === rooms.all[0] ? '' : `?room=${encodeURIComponent(room.name)}`);

export async function handoffRoutes(app: SchemaTypedApp, options: HandoffRouteOptions): Promise<void> {
  const { rooms, clock, config } = options;
  const pages = (room: Room) => {
    const page = options.roomPages?.get(room.name) ?? options.page;
    return { page, policy: pagePolicy(page.styles, page.scripts) };
  };

  app.post(
    HANDOFF_ROUTE,
    {
      schema: {
        summary: '"Continue on another device": a link that moves this place to the browser that opens it',
        description: `Checked as queue_request is (session, then CSRF token). The link works once, for HANDOFF_SECONDS (${config.handoffSeconds} s).`,
        tags: TAGS,
        querystring: ROOM_QUERY,
        body: failsWith(
          {
            type: 'object',
            required: ['uuid'],
            properties: {
              _token: { type: 'string', description: "The session's CSRF token (419 when wrong)." },
              uuid: failsWith(
                { type: 'string', maxLength: 100, description: 'The place in line.' },
                'bad_uuid',
                "The uuid field must be 1 to 100 letters, digits, '-' or '_'.",
              ),
            },
          },
          'bad_request',
          'Send {"_token", "uuid"} as JSON.',
        ),
        response: {
          200: { type: 'object', properties: { url: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } },
          ...errorResponses(400, 403, 404, 409, 419),
        },
      },
      preValidation: async (request) => {
        const fields = request.body;
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return;
        checkCsrf(requireSession(request), (fields as { _token?: unknown })._token);
      },
    },
    async (request, reply) => {
      const room = rooms.named(request.query.room);
      const session = requireSession(request);
      const { uuid } = request.body;
      const entry = isUuid(uuid) ? await room.store.get(uuid) : undefined;
      if (!entry) throw new HttpError(404, UNKNOWN_UUID, 'No place in line has this uuid.');
      if (entry.sessionId !== session.id) throw new HttpError(403, 'not_your_place', 'This place in line belongs to another visitor.');
      const now = clock.now();
      const token = randomBytes(32).toString('base64url');
      const expiresAt = now + config.handoffSeconds * 1000;
      const kept = await room.store.offerHandoff(keyOf(token), { uuid, sessionId: session.id, name: session.name ?? '', expiresAt }, now);
      if (!kept) {
        throw new HttpError(409, 'not_movable', 'Only a place in line, or released and not yet replayed, moves to another device.');
      }
      const origin = originOf(request, config.host);
      const url = `${origin.secure ? 'https' : 'http'}://${origin.host}${HANDOFF_ROUTE}/${token}${roomQuery(room, rooms)}`;
      return reply.header('cache-control', 'no-store').send({ url, expiresAt: new Date(expiresAt).toISOString() });
    },
  );

  /** The link, opened: the first time in time, this browser takes the place and goes to its waiting page. */
  app.get(
    OPEN_ROUTE,
    {
      schema: {
        summary: 'Opens a "continue on another device" link: the place moves to this browser, once',
        tags: TAGS,
        params: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
        querystring: ROOM_QUERY,
        response: { 303: { type: 'null', description: 'Moved: to the waiting page of the place.' }, ...errorResponses(404, 410) },
      },
    },
    async (request, reply) => {
      const room = rooms.named(request.query.room);
      const refuse = (refusal: HandoffRefusal) => {
        throw new HttpError(REFUSALS[refusal].status, `handoff_${refusal}`, REFUSALS[refusal].message);
      };
      const { token } = request.params;
      if (!TOKEN_PATTERN.test(token)) return refuse('unknown');
      const now = clock.now();
      const to = randomUUID();
      const outcome = await room.store.takeHandoff(keyOf(token), to, randomUUID(), now);
      if (!outcome.moved) return refuse(outcome.refusal);
      const { entry } = outcome;
      adoptSession(request, reply, to, { userId: entry.userId, name: outcome.name });
      // The browser the place left stops following it; it would learn it from queue_info otherwise.
      await room.releases.announceHandedOff({ uuid: outcome.from, userId: entry.userId });
      request.log.info({ room: room.name, uuid: entry.uuid }, 'a place moved to another browser');
      const location = `${PLACE_ROUTE.replace(':uuid', entry.uuid)}${roomQuery(room, rooms)}`;
      // The token is in this address: never sent on as a referrer.
      return reply.code(303).header('location', location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
    },
  );

  /** The waiting page of this browser's own place (where a link sends it; a reload shows it again). */
  app.get(
    PLACE_ROUTE,
    {
      schema: {
        summary: "The waiting page of the session's own place",
        tags: TAGS,
        params: { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string' } } },
        querystring: ROOM_QUERY,
        response: { 200: { type: 'string', description: 'The waiting page.' }, ...errorResponses(403, 404, 410, 419) },
      },
    },
    async (request, reply) => {
      const room = rooms.named(request.query.room);
      const session = requireSession(request);
      const { uuid } = request.params;
      const now = clock.now();
      const place = isUuid(uuid) ? await room.store.placeInLine(uuid, now) : undefined;
      if (!place) {
        if (isUuid(uuid) && (await room.store.movedAway(uuid, now))) throw new HttpError(410, MOVED_AWAY, 'This place moved to another browser.');
        throw new HttpError(404, UNKNOWN_UUID, 'No place in line has this uuid.');
      }
      if (place.entry.sessionId !== session.id) throw new HttpError(403, 'not_your_place', 'This place in line belongs to another visitor.');
      const language = request.server.languages.choose({ headers: request.headers, roomLocale: room.locale });
      const facts = room.events.pageFacts(place.entry, place.position, now);
      const pageConfig = pageConfigFor(
        place.entry,
        facts.position,
        session,
        options.serverConfig,
        originOf(request, config.host),
        options.port(),
        room,
        language,
        facts.event,
      );
      const { page, policy } = pages(room);
      return sendWaitingPage(reply, page.render(pageConfig, language, queueInfoPreload(pageConfig)), policy);
    },
  );
}
