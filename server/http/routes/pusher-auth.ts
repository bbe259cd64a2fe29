import { AUTH_ENDPOINT, CHANNELS, isUuid } from '@waiting-room/streams/contract';
import { HttpError } from '../errors';
import { errorResponses, failsWith } from '../openapi';
import { channelAuth, type AppCredentials } from '../../realtime/signature';
import { checkCsrf, requireSession } from '../session';
import type { Rooms } from '../../domain/rooms';
import type { SchemaTypedApp } from '../type-provider';

/** pusher-js's channel authorization request, form or JSON: the socket and the channel to sign. */
export const CHANNEL_AUTH_BODY = failsWith(
  {
    type: 'object',
    required: ['socket_id', 'channel_name'],
    properties: {
      socket_id: failsWith({ type: 'string', pattern: '^\\d+\\.\\d+$' }, 'bad_socket_id', 'socket_id must look like 1234.5678.'),
      channel_name: failsWith({ type: 'string' }, 'bad_channel', 'channel_name is required.'),
    },
  },
  'bad_request',
  'Send the fields socket_id and channel_name, as a form or as JSON.',
);

/** A signed-in user's channel (`CHANNELS.user`): its uuid is what follows the user id. */
const USER_CHANNEL = /^private-App\.User\.\d+\.(.*)$/;

/**
 * Channel authorization at `AUTH_ENDPOINT` (pusher-js's default `/pusher/auth`, which page configs carry as `realtime.authEndpoint`): signs a subscription only to
 * the session's own private channel, the one named after its user and its place in line.
 */
export async function pusherAuthRoutes(app: SchemaTypedApp, options: { readonly app: AppCredentials; readonly rooms: Rooms }): Promise<void> {
  app.post(
    AUTH_ENDPOINT,
    {
      schema: {
        summary: 'Channel authorization for the waiting page',
        description: "pusher-js's default: form socket_id and channel_name, the CSRF token as X-CSRF-TOKEN. Signs only the session's own private channel.",
        tags: ['waiting page'],
        body: CHANNEL_AUTH_BODY,
        response: { 200: { type: 'object', properties: { auth: { type: 'string' } } }, ...errorResponses(400, 403, 419) },
      },
      // The session and its token come before the fields, as for queue_request.
      preValidation: async (request) => checkCsrf(requireSession(request), request.headers['x-csrf-token']),
    },
    async (request) => {
      const session = requireSession(request);
      const { socket_id: socketId, channel_name: channel } = request.body;
      const uuid = USER_CHANNEL.exec(channel)?.[1];
      const entry = isUuid(uuid) ? (await options.rooms.locate(uuid))?.entry : undefined;
      const own =
        entry !== undefined &&
        session.userId > 0 &&
        entry.sessionId === session.id &&
        entry.userId === session.userId &&
        channel === CHANNELS.user(session.userId, entry.uuid);
      if (!own) throw new HttpError(403, 'forbidden_channel', 'You may only listen on your own channel.');
      return { auth: channelAuth(options.app, socketId, channel) };
    },
  );
}
