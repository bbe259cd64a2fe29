import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import httpProxy from '@fastify/http-proxy';
import replyFrom, { type FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { logsEveryRequest, type GatewayConfig } from '../../process/config';
import { sendError, type ErrorAnswer } from '../errors';
import { requestTarget } from '../target';
import type { HeldRequest, QueueStore } from '../../store/types';
import { declareOriginWatch, originAnswered, originFailed } from '../admission-watch';
import { followOriginUser, USER_HEADER } from './identity';
import { COMMAND_HEADER, followOriginCommand, type Revoker } from './commands';
import { bodyBytes } from './held-body';
import { originRequestHeaders, visitorResponseHeaders, type ForwardOptions } from './headers';

/** How the gate hands a request to the origin. */
export interface Origin {
  /** Sends a held request to the origin in place of the replay form that asked for it. */
  replay(request: FastifyRequest, reply: FastifyReply, held: HeldRequest): FastifyReply;
}

/** What the gateway tells the metrics of the origin: a few additions a request, nothing more. */
export interface OriginMeter {
  /** The origin's answer headers came `ms` after the request arrived, with `status`. */
  originAnswered(ms: number, status: number): void;
  originFailed(kind: 'unreachable' | 'timeout'): void;
  /** The origin revoked a session admitted in `room` (`Waiting-Room-Command: revoke`). */
  revoked(room: string): void;
}

/** The methods the gateway forwards; any other gets Fastify's 404 as before. */
const METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

const UNREACHABLE: ErrorAnswer = {
  status: 502,
  code: 'origin_unreachable',
  message: 'The site behind the waiting room cannot be reached; try again in a moment.',
  headers: { 'retry-after': '5', 'cache-control': 'no-store' },
};
const TIMEOUT: ErrorAnswer = {
  status: 504,
  code: 'origin_timeout',
  message: 'The site behind the waiting room took too long to answer; try again in a moment.',
  headers: { 'retry-after': '5', 'cache-control': 'no-store' },
};

/** Timeouts of undici and reply-from: the origin was reached but did not answer in time. */
const TIMEOUT_CODES = new Set(['FST_REPLY_FROM_GATEWAY_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * The answer when the origin fails: a 504 when it was too slow to answer, a 502 when it could
 * not be reached or broke the connection. A page for a person, JSON for a program; nothing of
 * the waiting room's state is touched, so every place in line is kept.
 */
export function originErrorAnswer(error: Error & { code?: string; cause?: unknown }): ErrorAnswer {
  const cause = error.cause as { code?: string } | undefined;
  return TIMEOUT_CODES.has(error.code ?? '') || TIMEOUT_CODES.has(cause?.code ?? '') ? TIMEOUT : UNREACHABLE;
}

const forwardOptions = new WeakMap<FastifyRequest, ForwardOptions>();
/** The answers that are the origin's, passed on as they came (no security headers of ours). */
const originAnswers = new WeakSet<FastifyReply>();

/** True when `reply` carries the origin's answer, not one the waiting room wrote. */
export function isOriginAnswer(reply: FastifyReply): boolean {
  return originAnswers.has(reply);
}

/**
 * Forwards every request that is not one of the waiting room's own routes to the origin with
 * @fastify/reply-from (on undici's kept-alive pool), and WebSocket upgrades with
 * @fastify/http-proxy. `gate` runs first and decides whether a protected request goes on. Bodies stream
 * both ways, untouched; only the headers a proxy must change are changed (`headers.ts`). The
 * origin's 503s are the visitor's to see: nothing is retried.
 */
export async function registerOrigin(
  app: FastifyInstance,
  config: GatewayConfig & { readonly upstream: string },
  store: Pick<QueueStore, 'moveSession'> & Revoker,
  meter: OriginMeter,
  now: () => number,
  gate: (origin: Origin) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): Promise<void> {
  const replyOptions: FastifyReplyFromHooks = {
    onResponse: (request, reply, raw) => {
      const answer = reply as FastifyReply;
      originAnswers.add(answer);
      // What reply-from's undici client gives: the origin's headers and its body as a stream.
      const res = raw as unknown as { statusCode: number; headers: Record<string, string | string[] | undefined>; stream: Readable };
      meter.originAnswered(answer.elapsedTime, res.statusCode);
      originAnswered(request as FastifyRequest, res.statusCode);
      const user = res.headers[USER_HEADER];
      const command = res.headers[COMMAND_HEADER];
      if (user === undefined && command === undefined) return void answer.send(res.stream);
      // The origin has acted already (signed the visitor in, finished a checkout): its answer goes
      // through whatever happens here, and a store away for a moment only leaves the visitor's
      // place where it was, or its admission to run out by itself.
      const visitor = request as FastifyRequest;
      void Promise.allSettled([
        user === undefined
          ? undefined
          : followOriginUser(visitor, answer, user, store).catch((error: unknown) =>
              answer.request.log.warn({ err: error }, 'the origin named a user; the place could not follow'),
            ),
        command === undefined
          ? undefined
          : followOriginCommand(visitor, answer, command, store, now(), (room) => meter.revoked(room)).catch((error: unknown) =>
              answer.request.log.warn({ err: error }, 'the origin revoked a session; its admission runs out by itself'),
            ),
      ]).finally(() => answer.send(res.stream));
    },
    rewriteRequestHeaders: (request, headers) =>
      originRequestHeaders(
        request as FastifyRequest,
        headers,
        forwardOptions.get(request as FastifyRequest) ?? { contentType: request.headers['content-type'] },
      ),
    rewriteHeaders: (headers) => visitorResponseHeaders(headers),
    onError: (reply, { error }) => {
      reply.request.log.warn({ err: error }, 'origin failed');
      const answer = originErrorAnswer(error);
      meter.originFailed(answer === TIMEOUT ? 'timeout' : 'unreachable');
      originFailed(reply.request as FastifyRequest, answer === TIMEOUT);
      sendError(reply.request as FastifyRequest, reply as FastifyReply, answer);
    },
    retryDelay: () => null,
  };
  const origin: Origin = {
    replay(request, reply, held) {
      forwardOptions.set(request, { withoutCookies: held.crossSite === true, contentType: held.body?.contentType });
      const body = held.body ? bodyBytes(held.body) : null;
      return reply.from(held.uri, {
        ...replyOptions,
        method: held.method as 'POST',
        body: body as unknown as string,
        ...(held.body ? { contentType: held.body.contentType } : {}),
      });
    },
  };
  // Described in the OpenAPI document, never validated: a body the origin gets is not read here.
  app.addHook('onRoute', (route) => {
    route.schema ??= {
      summary: 'Forwarded to the origin',
      description: "Held in line first when under a protected prefix and the room is full (the waiting page, or 503 with the page's config for API clients).",
      tags: ['gateway'],
    };
  });
  declareOriginWatch(app);
  const preHandler = gate(origin);
  const undici = {
    connections: config.connections,
    pipelining: 1,
    connectTimeout: config.connectTimeoutMs,
    headersTimeout: config.responseTimeoutMs,
    bodyTimeout: config.responseTimeoutMs,
  };
  // reply-from's two info lines a request otherwise ("fetching from remote server", "response
  // received"): a forwarded request is logged when every request is, as the server's own.
  const disableRequestLogging = !logsEveryRequest(app.log.level);

  // HTTP: a route of our own for every path hands the request to reply-from. The target is
  // normalized already (http/target.ts) and reply-from keeps it on the upstream, so the checks
  // http-proxy's own route makes again (three URLs parsed, the query parsed and rebuilt: about
  // 3 µs a request) are left out.
  await app.register(async (scope) => {
    await scope.register(replyFrom, { base: config.upstream, undici, disableRequestLogging });
    // Every body streams: no parser reads one, Fastify's text/plain and JSON parsers included.
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser('application/json', passBody);
    scope.addContentTypeParser('*', passBody);
    const handler = (request: FastifyRequest, reply: FastifyReply) => reply.from(requestTarget(request).path, replyOptions);
    for (const url of ['/', '/*']) scope.route({ method: METHODS, url, preHandler, handler });
  });

  // WebSockets: http-proxy, on the same paths, for upgrade requests only (the `upgrade`
  // constraint), so that the routes above take every other request.
  app.addConstraintStrategy(UPGRADE);
  await app.register(httpProxy, {
    upstream: config.upstream,
    prefix: '/',
    websocket: true,
    httpMethods: ['GET'],
    constraints: { [UPGRADE.name]: true },
    // Fastify awaits an async preHandler; the plugin's type names only the callback kind.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    preHandler,
    undici,
    disableRequestLogging,
    replyOptions,
    // Typed without it, though http-proxy reads it: the origin's socket gets the same headers as its requests.
    wsClientOptions: {
      rewriteRequestHeaders: (headers: Record<string, string>, request: FastifyRequest) => ({
        ...headers,
        ...webSocketHeaders(request),
      }),
    } as object,
  });
}

/** A body handed on as the stream it arrives as. */
function passBody(_request: FastifyRequest, body: Readable, done: (error: Error | null, body: Readable) => void): void {
  done(null, body);
}

type RouteHandler = NonNullable<ReturnType<ReturnType<(typeof UPGRADE)['storage']>['get']>>;

/**
 * Routes the requests Node handed over as upgrades (`req.upgrade`: `Connection: upgrade` and an
 * `Upgrade` header) to the routes that ask for `{ upgrade: true }`; every other request to the
 * routes without the constraint.
 */
const UPGRADE: Parameters<FastifyInstance['addConstraintStrategy']>[0] = {
  name: 'upgrade',
  storage() {
    const handlers = new Map<unknown, RouteHandler>();
    return {
      get: (value) => handlers.get(value) ?? null,
      set: (value, handler) => void handlers.set(value, handler),
    };
  },
  // Node sets `upgrade` on the requests it hands to the server's 'upgrade' listeners.
  deriveConstraint: (req: IncomingMessage & { upgrade?: boolean }) => req.upgrade === true,
  mustMatchWhenDerived: false,
  validate(value: unknown) {
    if (value !== true) throw new Error('the upgrade constraint takes true only');
  },
};

/**
 * The visitor's handshake headers for the origin's socket: all that `originRequestHeaders`
 * passes (Origin, User-Agent, Authorization, cookies but ours, forwarding headers), less those
 * the WebSocket client writes for its own handshake.
 */
function webSocketHeaders(request: FastifyRequest): Record<string, string> {
  const headers = originRequestHeaders(request, request.headers) as Record<string, string>;
  for (const name of Object.keys(headers)) {
    if (name.startsWith('sec-websocket-') || name === 'host' || name === 'content-length') delete headers[name];
  }
  return headers;
}
