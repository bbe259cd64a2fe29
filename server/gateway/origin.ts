import type { Readable } from 'node:stream';
import httpProxy from '@fastify/http-proxy';
import type { FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { logsEveryRequest, type GatewayConfig } from '../config';
import { sendError, type ErrorAnswer } from '../errors';
import type { HeldRequest, QueueStore } from '../store/types';
import { declareOriginWatch, originAnswered, originFailed } from '../admission/watch';
import { followOriginUser, USER_HEADER } from './identity';
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

/**
 * Forwards every request that is not one of the waiting room's own routes to the origin with
 * @fastify/http-proxy (on @fastify/reply-from and undici's kept-alive pool), WebSocket upgrades
 * included. `gate` runs first and decides whether a protected request goes on. Bodies stream
 * both ways, untouched; only the headers a proxy must change are changed (`headers.ts`). The
 * origin's 503s are the visitor's to see: nothing is retried.
 */
export async function registerOrigin(
  app: FastifyInstance,
  config: GatewayConfig & { readonly upstream: string },
  store: Pick<QueueStore, 'moveSession'>,
  meter: OriginMeter,
  gate: (origin: Origin) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): Promise<void> {
  const replyOptions: FastifyReplyFromHooks = {
    onResponse: (request, reply, raw) => {
      const answer = reply as FastifyReply;
      // What reply-from's undici client gives: the origin's headers and its body as a stream.
      const res = raw as unknown as { statusCode: number; headers: Record<string, string | string[] | undefined>; stream: Readable };
      meter.originAnswered(answer.elapsedTime, res.statusCode);
      originAnswered(request as FastifyRequest, res.statusCode);
      const user = res.headers[USER_HEADER];
      if (user === undefined) return void answer.send(res.stream);
      // The origin has acted already (signed the visitor in): its answer goes through whatever
      // happens here, and a store away for a moment only leaves the visitor's place where it was.
      followOriginUser(request as FastifyRequest, answer, user, store)
        .catch((error: unknown) => answer.request.log.warn({ err: error }, 'the origin named a user; the place could not follow'))
        .finally(() => answer.send(res.stream));
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
  // Fastify's own text/plain parser would read (and re-encode) those bodies; every body streams.
  app.removeContentTypeParser('text/plain');
  // Described in the OpenAPI document, never validated: a body the origin gets is not read here.
  app.addHook('onRoute', (route) => {
    route.schema ??= {
      summary: 'Forwarded to the origin',
      description: "Held in line first when under a protected prefix and the room is full (the waiting page, or 503 with the page's config for API clients).",
      tags: ['gateway'],
    };
  });
  declareOriginWatch(app);
  await app.register(httpProxy, {
    upstream: config.upstream,
    prefix: '/',
    websocket: true,
    httpMethods: METHODS,
    internalRewriteLocationHeader: false,
    // reply-from's two info lines a request otherwise ("fetching from remote server", "response
    // received"): a forwarded request is logged when every request is, as the server's own.
    disableRequestLogging: !logsEveryRequest(app.log.level),
    // Fastify awaits an async preHandler; the plugin's type names only the callback kind.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    preHandler: gate(origin),
    undici: {
      connections: config.connections,
      pipelining: 1,
      connectTimeout: config.connectTimeoutMs,
      headersTimeout: config.responseTimeoutMs,
      bodyTimeout: config.responseTimeoutMs,
    },
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
