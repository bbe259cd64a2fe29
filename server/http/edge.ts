import type { FastifyInstance } from 'fastify';
import type { HttpTimeouts } from '../process/config';
import { answerFrameworkError, HttpError } from './errors';
import { answerClientError, trackRequest } from './client-errors';
import { refuseBadTarget, rewriteTarget } from './target';

/**
 * Node checks the request and headers timeouts only this often (30 s by default): a bound is
 * real only when the check runs well within it.
 */
const MAX_CHECKING_INTERVAL_MS = 1000;

/**
 * The HTTP server's timeouts. Headers must arrive within `headersTimeoutMs` and the whole
 * request within `requestTimeoutMs` (or 408, and the connection is closed); an idle keep-alive
 * connection is closed after `keepAliveTimeoutMs`. Node refuses a headers timeout longer than
 * the request timeout, which could not apply anyway: it is cut to it.
 */
export function serverTimeouts(timeouts: HttpTimeouts) {
  const requestTimeout = timeouts.requestTimeoutMs;
  const headersTimeout = Math.min(timeouts.headersTimeoutMs, requestTimeout);
  const connectionsCheckingInterval = Math.min(MAX_CHECKING_INTERVAL_MS, Math.floor(headersTimeout / 2));
  return {
    // Fastify sets these two on the server itself once made (its own defaults otherwise: 0 and 72 s).
    requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Passed to http.createServer, which reads them only there.
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval },
  };
}

/**
 * Fastify options for the edge: the target parsed once before routing (`http/target.ts`),
 * the timeouts, and every error met before a route (bad target, routing, malformed HTTP,
 * timeouts, shutting down) answered in the error contract instead of Fastify's own shapes.
 */
export function edgeOptions(timeouts: HttpTimeouts) {
  return {
    ...serverTimeouts(timeouts),
    rewriteUrl: rewriteTarget,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Fastify's own 503 while closing is off the contract; installEdge answers it instead.
    return503OnClosing: false,
  };
}

/**
 * The edge's hooks, to install before any other: the first `onRequest` refuses a bad target
 * (400 `bad_request_target`) and, once the server is closing, answers what still arrives on
 * open connections with 503 `shutting_down`; the first request that comes through a proxy
 * (`X-Forwarded-For`) while `trustProxy` is off is logged as a warning.
 */
export function installEdge(app: FastifyInstance, trustProxy: boolean): void {
  app.server.on('request', trackRequest);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Behind a proxy without TRUST_PROXY, every visitor has the proxy's address: each per-address
  // bound (places, held bodies, sockets, error reports) would count them all as one. Said once.
  let proxyUnheeded = !trustProxy;
  // A callback hook, not an async one: it runs for every request, and needs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      refuseBadTarget(request);
    } catch (error) {
      return done(error as HttpError);
    }
    if (proxyUnheeded && request.headers['x-forwarded-for'] !== undefined) {
      proxyUnheeded = false;
      request.log.warn(
        'A request came with X-Forwarded-For while TRUST_PROXY is off: behind a proxy, set TRUST_PROXY=true, or every visitor counts as the proxy for PLACES_PER_ADDRESS, HELD_BODIES_PER_ADDRESS_BYTES and REALTIME_MAX_CONNECTIONS_PER_ADDRESS.',
      );
    }
    if (closing) {
      return done(new HttpError(503, 'shutting_down', 'The server is shutting down; try again in a moment.', { 'retry-after': '2' }));
    }
    done();
  });
}
