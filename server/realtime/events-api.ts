import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors';
import type { ChannelMessage, Fanout } from './fanout';
import { channelKind } from './protocol';
import { bodyMd5, requestSignature, sameText, type AppCredentials } from './signature';

export interface EventsApiOptions {
  readonly app: AppCredentials;
  readonly fanout: Fanout;
  /** Wall-clock seconds, for the freshness of `auth_timestamp`. */
  readonly nowSeconds?: () => number;
}

/** How far `auth_timestamp` may be from our clock, as Pusher Channels allows. */
export const TIMESTAMP_WINDOW_SECONDS = 600;
const MAX_DATA = 10 * 1024;
const MAX_CHANNELS = 100;
const MAX_BATCH = 10;
/** A full batch of 10 KB events, with room for names and channels. */
const BODY_LIMIT = 256 * 1024;

/**
 * The HTTP events API: `POST /apps/{appId}/events` and `/batch_events`, signed as the
 * Pusher HTTP API is (what the `pusher` SDK and every Pusher server library send).
 */
export function eventsApiRoutes(app: FastifyInstance, options: EventsApiOptions): void {
  const nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);

  app.post('/apps/:appId/events', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    authenticate(request, options.app, nowSeconds());
    await publishAll(options.fanout, eventMessages(request.body));
    return reply.send({});
  });

  app.post('/apps/:appId/batch_events', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    authenticate(request, options.app, nowSeconds());
    const batch = (request.body as { batch?: unknown } | null)?.batch;
    if (!Array.isArray(batch) || batch.length === 0 || batch.length > MAX_BATCH) {
      throw new HttpError(400, 'bad_event', `"batch" must list 1 to ${MAX_BATCH} events.`);
    }
    await publishAll(options.fanout, batch.flatMap((event: unknown) => eventMessages(event)));
    return reply.send({ batch: batch.map(() => ({})) });
  });
}

async function publishAll(fanout: Fanout, messages: readonly ChannelMessage[]): Promise<void> {
  await Promise.all(messages.map((message) => fanout.publish(message)));
}

/** Checks the app id, the key, the timestamp, the body's MD5 and the signature. */
function authenticate(request: FastifyRequest, app: AppCredentials, nowSeconds: number): void {
  const { appId } = request.params as { appId: string };
  if (appId !== app.appId) throw new HttpError(404, 'unknown_app', 'Unknown app id.');
  const query = stringParams(request.query);
  if (query.auth_key !== app.key) throw new HttpError(401, 'unknown_key', 'Unknown auth_key.');
  if (query.auth_version !== '1.0') throw new HttpError(401, 'bad_auth_version', 'auth_version must be 1.0.');
  const timestamp = Number(query.auth_timestamp);
  if (!Number.isFinite(timestamp) || Math.abs(nowSeconds - timestamp) > TIMESTAMP_WINDOW_SECONDS) {
    throw new HttpError(
      401,
      'stale_timestamp',
      `auth_timestamp must be within ${TIMESTAMP_WINDOW_SECONDS} s of the server's clock.`,
    );
  }
  const body = request.rawBody ?? '';
  if (body !== '' && !sameText(query.body_md5 ?? '', bodyMd5(body))) {
    throw new HttpError(401, 'bad_body_md5', 'body_md5 does not match the body.');
  }
  const path = request.url.split('?')[0] ?? '';
  const expected = requestSignature(app.secret, request.method, path, query);
  if (!sameText(query.auth_signature ?? '', expected)) {
    throw new HttpError(401, 'bad_signature', 'Invalid auth_signature.');
  }
}

function stringParams(query: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new HttpError(400, 'bad_query', `Query parameter "${key}" is repeated.`);
    params[key] = value;
  }
  return params;
}

/** The messages of one event body: `{name, data, channels | channel, socket_id?}`. */
function eventMessages(body: unknown): ChannelMessage[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'bad_event', 'The event must be a JSON object.');
  }
  const { name, data, channels, channel, socket_id: socketId } = body as Record<string, unknown>;
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new HttpError(400, 'bad_event', '"name" must be a string of 1 to 200 characters.');
  }
  const text = typeof data === 'string' ? data : JSON.stringify(data ?? null);
  if (Buffer.byteLength(text) > MAX_DATA) {
    throw new HttpError(413, 'payload_too_large', `"data" must be at most ${MAX_DATA} bytes.`);
  }
  const targets = channels ?? (channel === undefined ? undefined : [channel]);
  if (!Array.isArray(targets) || targets.length === 0 || targets.length > MAX_CHANNELS) {
    throw new HttpError(400, 'bad_event', `"channels" must list 1 to ${MAX_CHANNELS} channels.`);
  }
  for (const target of targets) {
    if (typeof target !== 'string' || channelKind(target) === undefined) {
      throw new HttpError(400, 'bad_channel', `Invalid channel name: ${JSON.stringify(target)}.`);
    }
  }
  if (socketId !== undefined && (typeof socketId !== 'string' || !/^\d+\.\d+$/.test(socketId))) {
    throw new HttpError(400, 'bad_socket_id', '"socket_id" must look like 1234.5678.');
  }
  return (targets as string[]).map((target) => ({ channel: target, event: name, data: text, exceptSocketId: socketId }));
}
