import type { Clock } from '../../domain/clock';
import type { Room, Rooms } from '../../domain/rooms';
import { addressKey } from '../../domain/bot-check/address';
import { CODE_GUESSES, MAX_CODES_PER_CALL, codeHash, newCode, normalCode } from '../../domain/codes';
import type { CodeUse } from '../../store/types';
import { HttpError } from '../errors';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import { checkCsrf, requireSession } from '../session';
import type { SchemaTypedApp } from '../type-provider';

export interface CodeRouteOptions {
  readonly rooms: Rooms;
  readonly clock: Clock;
}

/** The route the waiting page sends a code to (`?room=` as its other routes, for any room but the first). */
export const QUEUE_CODE_ROUTE = '/queue/code';

const ROOM = failsWith({ type: 'string', description: 'The room; the first when absent.' }, 'bad_room', '"room" must be a room\'s name.');
const ROOM_QUERY = { type: 'object', properties: { room: ROOM } } as const;
/** Longest code field read: a code is 10 characters, typed with spaces or dashes between. */
const MAX_TYPED = 64;

/** `POST /admin/codes` (under the admin scope and its access): issues priority codes for a room. */
export async function codeAdminRoutes(app: SchemaTypedApp, options: CodeRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  app.post(
    '/codes',
    {
      schema: {
        summary: 'Issue priority codes',
        description:
          'Each code, entered once on the waiting page, moves its place ahead of every place without a code (docs/places.md). Only their hashes are kept: the answer is the only copy. They expire after the room’s CODE_MINUTES.',
        tags: ['admin'],
        security: ADMIN_SECURITY,
        querystring: ROOM_QUERY,
        body: failsWith(
          {
            type: 'object',
            additionalProperties: false,
            required: ['count'],
            properties: {
              count: failsWith(
                { type: 'integer', minimum: 1, maximum: MAX_CODES_PER_CALL },
                'bad_count',
                `"count" must be a whole number from 1 to ${MAX_CODES_PER_CALL}.`,
              ),
              room: ROOM,
            },
          },
          'bad_request',
          'Send {"count": n}, optionally with "room".',
        ),
        response: {
          200: {
            type: 'object',
            properties: {
              codes: { type: 'array', items: { type: 'string' } },
              room: { type: 'string' },
              expiresAt: { type: 'string', format: 'date-time' },
            },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const room = rooms.named(request.query.room ?? request.body.room);
      const now = clock.now();
      const expiresAt = now + room.codeMs;
      const codes = Array.from({ length: request.body.count }, newCode);
      await room.store.addCodes(
        codes.map((code) => codeHash(room.name, normalCode(code) as string)),
        now,
        expiresAt,
      );
      reply.header('cache-control', 'no-store');
      return { codes, room: room.name, expiresAt: new Date(expiresAt).toISOString() };
    },
  );
}

/** `POST /queue/code`: a waiting visitor's session enters a code. */
export async function codeRoutes(app: SchemaTypedApp, options: CodeRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  app.post(
    QUEUE_CODE_ROUTE,
    {
      schema: {
        summary: 'Enter a priority code',
        description:
          "Moves the session's place ahead of every place without a code, behind earlier code holders (docs/places.md). 200 with the new position; 400 not a code; 404 no such code (unknown, used or expired); 409 the place does not wait; 429 too many wrong codes.",
        tags: ['waiting page'],
        querystring: ROOM_QUERY,
        body: failsWith(
          {
            type: 'object',
            required: ['code'],
            properties: {
              _token: { type: 'string', description: "The session's CSRF token (419 when wrong)." },
              code: failsWith({ type: 'string', maxLength: MAX_TYPED }, 'bad_code', `"code" must be a string of at most ${MAX_TYPED} characters.`),
            },
          },
          'bad_request',
          'Send {"code": "…"} as JSON or as a form.',
        ),
        response: {
          200: { type: 'object', properties: { position: { type: 'integer' }, ahead: { type: 'boolean' } } },
          ...errorResponses(400, 404, 409, 419, 429),
        },
      },
      preValidation: async (request) => {
        const fields = request.body;
        const token = typeof fields === 'object' && fields !== null ? (fields as { _token?: unknown })._token : undefined;
        checkCsrf(requireSession(request), token ?? request.headers['x-csrf-token']);
      },
    },
    async (request, reply) => {
      const room: Room = rooms.named(request.query.room);
      const session = requireSession(request);
      const code = normalCode(request.body.code);
      if (code === undefined) throw new HttpError(400, 'bad_code', 'A code is 10 letters and digits, as it was given.');
      const used = await room.store.useCode(session.id, codeHash(room.name, code), clock.now(), { address: addressKey(request.ip), ...CODE_GUESSES });
      reply.header('cache-control', 'no-store');
      return { position: positionOf(used), ahead: used.outcome === 'ahead' };
    },
  );
}

/** The new position, or the error the outcome is answered with. */
function positionOf(used: CodeUse): number {
  switch (used.outcome) {
    case 'moved':
    case 'ahead':
      return used.position;
    case 'wrong':
      throw new HttpError(404, 'unknown_code', 'This code is not valid: it may have been used already or have expired.');
    case 'limited':
      throw new HttpError(429, 'too_many_codes', 'Too many wrong codes: no more are checked for this place or this address for now.');
    case 'not-waiting':
      throw new HttpError(409, 'not_waiting', 'This place does not wait in line (it is released, or waits for its bot check).');
    case 'no-place':
      throw new HttpError(409, 'no_place', 'This session has no place in line.');
  }
}
