import type { FastifyInstance } from 'fastify';
import { CHANNELS } from '../../streams/constants';
import { fieldsOf, textField } from '../body';
import { HttpError } from '../errors';
import { channelAuth, type AppCredentials } from '../realtime/signature';
import { checkCsrf, requireSession } from '../session';
import type { Rooms } from '../rooms';

const USER_CHANNEL = /^private-App\.User\.(\d+)\.([0-9a-f-]{36})$/i;

/**
 * Channel authorization (pusher-js's default `/pusher/auth`): signs a subscription only to
 * the session's own private channel, the one named after its user and its place in line.
 */
export async function pusherAuthRoutes(
  app: FastifyInstance,
  options: { readonly app: AppCredentials; readonly rooms: Rooms },
): Promise<void> {
  app.post('/pusher/auth', async (request) => {
    const fields = fieldsOf(request);
    const session = requireSession(request);
    checkCsrf(session, request.headers['x-csrf-token']);
    const socketId = textField(fields, 'socket_id');
    const channel = textField(fields, 'channel_name');
    if (socketId === undefined || !/^\d+\.\d+$/.test(socketId)) {
      throw new HttpError(400, 'bad_socket_id', 'socket_id must look like 1234.5678.');
    }
    if (channel === undefined) throw new HttpError(400, 'bad_channel', 'channel_name is required.');
    const uuid = USER_CHANNEL.exec(channel)?.[2];
    const entry = uuid === undefined ? undefined : (await options.rooms.locate(uuid))?.entry;
    const own =
      entry !== undefined &&
      session.userId > 0 &&
      entry.sessionId === session.id &&
      entry.userId === session.userId &&
      channel === CHANNELS.user(session.userId, entry.uuid);
    if (!own) throw new HttpError(403, 'forbidden_channel', 'You may only listen on your own channel.');
    return { auth: channelAuth(options.app, socketId, channel) };
  });
}
