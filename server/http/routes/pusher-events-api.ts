import type { FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { HttpError } from '../errors';
import { errorResponses, failsWith } from '../openapi';
import type { ChannelMessage, Fanout } from '../../realtime/fanout';
import { bodyMd5, requestSignature, sameText, type AppCredentials } from '../../realtime/signature';
import type { SchemaTypedApp } from '../type-provider';

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
/** Channel names: letters, digits and `_-=@,.;`, at most 200 characters (as `channelKind` reads them). */
const CHANNEL_NAME = failsWith(
  { type: 'string', pattern: '^[A-Za-z0-9_\\-=@,.;]{1,200}$' },
  'bad_channel',
  'Each channel name must be 1 to 200 letters, digits or _-=@,.;',
);

/** One event: `{name, data, channels | channel, socket_id?}`. */
const EVENT = failsWith(
  {
    type: 'object',
    required: ['name'],
    properties: {
      name: failsWith({ type: 'string', minLength: 1, maxLength: 200 }, 'bad_event', '"name" must be a string of 1 to 200 characters.'),
      data: { description: `The event's data: a string, or JSON written as one; at most ${MAX_DATA} bytes (413 past it).` },
      channels: failsWith(
        { type: 'array', minItems: 1, maxItems: MAX_CHANNELS, items: CHANNEL_NAME },
        'bad_event',
        `"channels" must list 1 to ${MAX_CHANNELS} channels.`,
      ),
      channel: CHANNEL_NAME,
      socket_id: failsWith({ type: 'string', pattern: '^\\d+\\.\\d+$' }, 'bad_socket_id', '"socket_id" must look like 1234.5678.'),
    },
  },
  'bad_event',
  'The event must be a JSON object.',
);

/** The signed query every call carries (checked before the body, in `authenticate`). */
const SIGNED_QUERY = {
  type: 'object',
  properties: Object.fromEntries(['auth_key', 'auth_timestamp', 'auth_version', 'body_md5', 'auth_signature'].map((name) => [name, { type: 'string' }])),
};
const APP_PARAMS = { type: 'object', required: ['appId'], properties: { appId: { type: 'string' } } } as const;
const schema = <const Body extends object>(summary: string, body: Body, ok: object) => ({
  summary,
  tags: ['pusher http api'],
  params: APP_PARAMS,
  querystring: SIGNED_QUERY,
  body,
  response: { 200: ok, ...errorResponses(400, 401, 404, 413) },
});

/** A channel event as the schemas let it through. */
interface EventBody {
  readonly name: string;
  readonly data?: unknown;
  readonly channels?: readonly string[];
  readonly channel?: string;
  readonly socket_id?: string;
}

/**
 * The HTTP events API: `POST /apps/{appId}/events` and `/batch_events`, signed as the
 * Pusher HTTP API is (what the `pusher` SDK and every Pusher server library send).
 */
export function eventsApiRoutes(app: SchemaTypedApp, options: EventsApiOptions): void {
  const nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);

  // The signature first: an unsigned call learns nothing about what its body lacks.
  const preValidation = async (request: FastifyRequest<{ Params: FromSchema<typeof APP_PARAMS> }>) => authenticate(request, options.app, nowSeconds());

  app.post(
    '/apps/:appId/events',
    { bodyLimit: BODY_LIMIT, preValidation, schema: schema('Trigger an event (Pusher HTTP API)', EVENT, { type: 'object' }) },
    async (request, reply) => {
      await publishAll(options.fanout, eventMessages(request.body));
      return reply.send({});
    },
  );

  app.post(
    '/apps/:appId/batch_events',
    {
      bodyLimit: BODY_LIMIT,
      preValidation,
      schema: schema(
        'Trigger a batch of events (Pusher HTTP API)',
        failsWith(
          {
            type: 'object',
            required: ['batch'],
            properties: {
              batch: failsWith({ type: 'array', minItems: 1, maxItems: MAX_BATCH, items: EVENT }, 'bad_event', `"batch" must list 1 to ${MAX_BATCH} events.`),
            },
          },
          'bad_event',
          `Send {"batch": [1 to ${MAX_BATCH} events]}.`,
        ),
        { type: 'object', properties: { batch: { type: 'array', items: { type: 'object' } } } },
      ),
    },
    async (request, reply) => {
      const { batch } = request.body;
      await publishAll(
        options.fanout,
        batch.flatMap((event) => eventMessages(event)),
      );
      return reply.send({ batch: batch.map(() => ({})) });
    },
  );
}

async function publishAll(fanout: Fanout, messages: readonly ChannelMessage[]): Promise<void> {
  await Promise.all(messages.map((message) => fanout.publish(message)));
}

/** Checks the app id, the key, the timestamp, the body's MD5 and the signature. */
function authenticate(request: FastifyRequest<{ Params: FromSchema<typeof APP_PARAMS> }>, app: AppCredentials, nowSeconds: number): void {
  const { appId } = request.params;
  if (appId !== app.appId) throw new HttpError(404, 'unknown_app', 'Unknown app id.');
  const query = stringParams(request.query);
  if (query.auth_key !== app.key) throw new HttpError(401, 'unknown_key', 'Unknown auth_key.');
  if (query.auth_version !== '1.0') throw new HttpError(401, 'bad_auth_version', 'auth_version must be 1.0.');
  const timestamp = Number(query.auth_timestamp);
  if (!Number.isFinite(timestamp) || Math.abs(nowSeconds - timestamp) > TIMESTAMP_WINDOW_SECONDS) {
    throw new HttpError(401, 'stale_timestamp', `auth_timestamp must be within ${TIMESTAMP_WINDOW_SECONDS} s of the server's clock.`);
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

/** The messages of one event body, which its schema has checked but for the data's size and the one-of `channels` or `channel`. */
function eventMessages(body: EventBody): ChannelMessage[] {
  const { name, data, channels, channel, socket_id: socketId } = body;
  const text = typeof data === 'string' ? data : JSON.stringify(data ?? null);
  if (Buffer.byteLength(text) > MAX_DATA) {
    throw new HttpError(413, 'payload_too_large', `"data" must be at most ${MAX_DATA} bytes.`);
  }
  const targets = channels ?? (channel === undefined ? undefined : [channel]);
  if (targets === undefined) throw new HttpError(400, 'bad_event', `"channels" must list 1 to ${MAX_CHANNELS} channels.`);
  return targets.map((target) => ({ channel: target, event: name, data: text, exceptSocketId: socketId }));
}
