import { MAX_MESSAGE_LENGTH } from '@waiting-room/streams/contract';
import type { Room, Rooms } from '../../domain/rooms';
import { MAX_MESSAGE_BYTES } from '../../domain/room-message';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import type { SchemaTypedApp } from '../type-provider';
import { LOCALES } from '../../../locales';

export interface MessageRouteOptions {
  readonly rooms: Rooms;
}

const TAGS = ['admin'];
const ROOM = failsWith({ type: 'string', description: 'The room; the first when absent.' }, 'bad_room', '"room" must be a room\'s name.');
const ROOM_QUERY = { type: 'object', properties: { room: ROOM } } as const;
const TEXT = { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_LENGTH } as const;

/** The message as every waiting page gets it. */
const MESSAGE = {
  type: 'object',
  properties: {
    version: { type: 'integer', description: 'Grows with each change, a clearing included; 0: none was ever set.' },
    text: { type: 'string', description: 'The text for any language.' },
    texts: { type: 'object', additionalProperties: { type: 'string' }, description: 'The text per language tag.' },
    locale: { type: 'string', description: "The room's language: its text is shown to a visitor whose language has none." },
  },
} as const;

const BODY = failsWith(
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      text: failsWith(
        { ...TEXT, description: 'Plain text, for every language.' },
        'bad_message',
        `"text" must be 1 to ${MAX_MESSAGE_LENGTH} characters of plain text.`,
      ),
      texts: failsWith(
        {
          type: 'object',
          maxProperties: LOCALES.length,
          additionalProperties: TEXT,
          description: "Plain text per language tag of the catalogue (en, fr, pt-BR…); a visitor's language without one reads the room's, else `text`.",
        },
        'bad_message',
        `"texts" must map language tags to texts of 1 to ${MAX_MESSAGE_LENGTH} characters.`,
      ),
      room: ROOM,
    },
  },
  'bad_request',
  'Send {"text": "…"} or {"texts": {"en": "…", "fr": "…"}}, or both, optionally with "room".',
);

/**
 * The operator's message to a room's waiting visitors: `GET`, `PUT` (sets it) and `DELETE` (clears
 * it) `/admin/message`, on the room `?room=` (or `"room"` in the body) names, the first when none.
 * Registered inside the admin scope, whose access it takes.
 */
export async function messageAdminRoutes(app: SchemaTypedApp, { rooms }: MessageRouteOptions): Promise<void> {
  const roomOf = (request: { readonly query: { readonly room?: string }; readonly body?: unknown }): Room => {
    const body = request.body;
    return rooms.named(request.query.room ?? (typeof body === 'object' && body !== null && 'room' in body ? body.room : undefined));
  };
  const call = <T extends object>(summary: string, extra: T) => ({ summary, tags: TAGS, security: ADMIN_SECURITY, querystring: ROOM_QUERY, ...extra });

  app.get(
    '/message',
    { schema: call("The room's message to those waiting", { response: { 200: MESSAGE, ...errorResponses(401, 404) } }) },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return (await roomOf(request).message.current()) ?? { version: 0 };
    },
  );

  app.put(
    '/message',
    {
      schema: call('Set the message every waiting page shows', {
        description:
          `Plain text (never HTML), shown in a live region of every waiting page of the room within a second (pushed as QueueMessage on its line's channel), ` +
          `in the page config of a page opened later, in queue_info's answers and in the held JSON of API clients. At most ${MAX_MESSAGE_LENGTH} characters a text, ` +
          `${MAX_MESSAGE_BYTES} bytes in all; "texts" must have the room's language unless "text" is given. Kept in the store: every instance answers it.`,
        body: BODY,
        response: { 200: MESSAGE, ...errorResponses(400, 401, 403, 404) },
      }),
    },
    async (request) => {
      const { text, texts } = request.body;
      return roomOf(request).message.change({ ...(text !== undefined && { text }), ...(texts !== undefined && { texts }) });
    },
  );

  app.delete(
    '/message',
    {
      // No body at all is the usual call.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: call('Clear the message', {
        body: failsWith({ type: 'object', additionalProperties: false, properties: { room: ROOM } }, 'bad_request', 'Send no body, or {"room": "…"}.'),
        response: { 200: MESSAGE, ...errorResponses(400, 401, 403, 404) },
      }),
    },
    async (request) => roomOf(request).message.change(null),
  );
}
