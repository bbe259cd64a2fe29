import { ADMIN_CHANNEL, SAMPLE_EVENT, SAMPLE_MS, type LiveSnapshot } from '../../domain/console/samples';
import type { Sampler } from '../../domain/console/sampler';
import { HttpError } from '../errors';
import { channelAuth, sameText, type AppCredentials } from '../../realtime/signature';
import { originOf } from '../request-origin';
import type { ServerConfig } from '../../process/config';
import { realtimeFor } from '../page-config';
import type { Rooms } from '../../domain/rooms';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import { CHANNEL_AUTH_BODY } from './pusher-auth';
import { builtPage } from './built-page';
import { callerOf, endAdminSession, startAdminSession, type AdminAccessOptions } from '../admin/access';
import type { SchemaTypedApp } from '../type-provider';

export interface AdminConsoleOptions {
  readonly access: AdminAccessOptions;
  readonly rooms: Rooms;
  readonly config: ServerConfig;
  readonly pusherApp: AppCredentials;
  readonly sampler: Sampler;
  /** The origin the gateway forwards to. */
  readonly upstream: string;
  /** The port this instance listens on (known once listening). */
  readonly port: () => number;
  /** The built console page (`build.mjs` writes it beside the waiting page). */
  readonly pageFile: string;
}

/**
 * The console's page must never be framed (its buttons release visitors), and loads only its own
 * files; it talks to this server and the realtime socket.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

const SESSION = {
  type: 'object',
  properties: {
    csrfToken: { type: 'string', description: 'Send it as X-CSRF-Token with every call that changes something.' },
    expiresAt: { type: 'integer', description: 'When the session ends (ms since the epoch).' },
  },
} as const;
const TAGS = ['admin console'];

/**
 * The operator console: its page at `/admin/`, signing in with the admin token (exchanged for
 * an HttpOnly, SameSite=Strict session cookie; the token is never kept by the page), the last
 * hour and the realtime settings it needs (`/admin/live`), and the authorization of its private
 * channel, where the samples are pushed. See docs/admin-console.md.
 */
export async function adminConsoleRoutes(app: SchemaTypedApp, options: AdminConsoleOptions): Promise<void> {
  const page = builtPage(options.pageFile, 'console_not_built', 'The console');

  app.get('/', { config: { adminOpen: true }, schema: { summary: 'The operator console (HTML)', tags: TAGS } }, async (_request, reply) => {
    return reply
      .headers(PAGE_HEADERS)
      .type('text/html; charset=utf-8')
      .send(await page());
  });

  app.post(
    '/session',
    {
      config: { adminOpen: true },
      schema: {
        summary: 'Sign the console in: the admin token for a session cookie',
        tags: TAGS,
        body: failsWith(
          {
            type: 'object',
            required: ['token'],
            additionalProperties: false,
            properties: { token: failsWith({ type: 'string', maxLength: 1024 }, 'bad_token', '"token" must be the admin token.') },
          },
          'bad_request',
          'Send {"token": "<admin token>"}.',
        ),
        response: { 200: SESSION, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { token } = request.body;
      if (!sameText(token, options.access.token)) {
        // Counted with wrong Bearer tokens; past the limit, slowed and refused with 429.
        await options.access.failures.failed(request.ip);
        throw new HttpError(401, 'unauthorized', 'The admin token is wrong.');
      }
      const session = startAdminSession(request, reply, options.access);
      reply.header('cache-control', 'no-store');
      return { csrfToken: session.csrfToken, expiresAt: session.expiresAt };
    },
  );

  app.get(
    '/session',
    {
      schema: { summary: "The console's session and its CSRF token", tags: TAGS, security: ADMIN_SECURITY, response: { 200: SESSION, ...errorResponses(401) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const caller = callerOf(request);
      return caller?.kind === 'session' ? { csrfToken: caller.csrfToken, expiresAt: caller.expiresAt } : {};
    },
  );

  app.delete(
    '/session',
    { schema: { summary: 'Sign the console out', tags: TAGS, security: ADMIN_SECURITY, response: { 204: { type: 'null' }, ...errorResponses(401, 403) } } },
    async (request, reply) => {
      endAdminSession(request, reply);
      return reply.code(204).send();
    },
  );

  app.get(
    '/live',
    {
      schema: {
        summary: 'The last hour of samples, and where the live ones are pushed',
        tags: TAGS,
        security: ADMIN_SECURITY,
        response: { ...errorResponses(401) },
      },
    },
    async (request, reply): Promise<LiveSnapshot> => {
      reply.header('cache-control', 'no-store');
      const { cluster, key, ...realtime } = realtimeFor(options.config, originOf(request, options.config.host), options.port());
      return {
        sampleMs: SAMPLE_MS,
        channel: ADMIN_CHANNEL,
        event: SAMPLE_EVENT,
        realtime: { key, cluster, ...realtime },
        origin: options.upstream,
        rooms: options.rooms.all.map((room) => room.name),
        history: options.sampler.history(),
      };
    },
  );

  app.post(
    '/pusher/auth',
    {
      schema: {
        summary: "Authorize the console's socket on its private channel",
        description: "pusher-js's channel authorization: form socket_id and channel_name. Signs only the admin channel, for admin access only.",
        tags: TAGS,
        security: ADMIN_SECURITY,
        body: CHANNEL_AUTH_BODY,
        response: { 200: { type: 'object', properties: { auth: { type: 'string' } } }, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { socket_id: socketId, channel_name: channel } = request.body;
      if (channel !== ADMIN_CHANNEL) throw new HttpError(403, 'forbidden_channel', 'The console listens on its own channel only.');
      return { auth: channelAuth(options.pusherApp, socketId, channel) };
    },
  );

  app.get('/openapi.json', { schema: { summary: 'This document', tags: TAGS, security: ADMIN_SECURITY } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return app.swagger();
  });
}
