import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderErrorPage, sameSiteReferrer } from './error-page';
import { prefersHtml } from './negotiate';
import type { Languages } from './languages';
import { isOwnPath } from '../domain/protection';
import { validationAnswer } from './openapi';
import { errorBody, type ErrorAnswer } from './error-answer';
import { DomainError, type RefusalKind } from '../domain/errors';
import { FanoutUnavailableError } from '../realtime/fanout-error';
import { PlacesPerAddressError, StoreUnavailableError } from '../store/errors';

/** An error the visitor or client caused, answered as `{error: {code, message}}` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Headers the answer needs (`Allow`, `Retry-After`…). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export { errorBody, type ErrorAnswer } from './error-answer';

/** The status each kind of the domain's refusals is answered with. */
const REFUSAL_STATUS: Record<RefusalKind, number> = { invalid: 400, not_found: 404, conflict: 409, busy: 503 };

/** Fastify's own errors, named for clients. */
const FASTIFY_ERRORS: Record<string, ErrorAnswer> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send JSON or a form (application/x-www-form-urlencoded).',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'bad_request',
    message: 'The Content-Length does not match the body.',
  },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'bad_request', message: 'The Content-Type header is malformed.' },
  // The request target is normalized before routing (http/target.ts), so the router should
  // never find it bad; should it, the answer is the same as for a target refused there.
  FST_ERR_BAD_URL: { status: 400, code: 'bad_request_target', message: 'The request target cannot be routed.' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', message: 'A part of the path is too long.' },
};

/**
 * Errors Node's HTTP parser meets before there is a request to route (Fastify's
 * `clientErrorHandler`), by `error.code`; any other is a plain 400.
 */
const CLIENT_ERRORS: Record<string, ErrorAnswer> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    message: 'The request took too long to arrive; send it again, faster.',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    message: 'The request line and headers are too large.',
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    code: 'payload_too_large',
    message: 'The chunk extensions are too large.',
  },
  HPE_INVALID_URL: {
    status: 400,
    code: 'bad_request_target',
    message: 'The request target is refused: it holds a space, a control character or a character outside ASCII.',
  },
};
const MALFORMED_HTTP: ErrorAnswer = { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1.' };

/** The answer to an error Node's HTTP parser reported on a connection. */
export function clientErrorAnswer(error: { readonly code?: string }): ErrorAnswer {
  return (error.code !== undefined && CLIENT_ERRORS[error.code]) || MALFORMED_HTTP;
}

/**
 * The answer to an error a route, a hook or Fastify threw. Never a stack trace: unexpected
 * errors are logged and answered as a plain 500.
 */
export function errorAnswer(error: FastifyError | Error, log: FastifyBaseLogger): ErrorAnswer {
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  }
  if (error instanceof DomainError) {
    const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
    return { status: REFUSAL_STATUS[error.kind], code: error.code, message: error.message, headers };
  }
  if (error instanceof StoreUnavailableError) {
    log.warn({ err: error.cause ?? error }, 'queue store unavailable');
    // Nothing is lost: the place in line is kept in the store, and the page polls again.
    return {
      status: 503,
      code: 'store_unavailable',
      message: 'The waiting room is busy; try again in a moment.',
      headers: { 'retry-after': '2' },
    };
  }
  if (error instanceof PlacesPerAddressError) {
    // A person gets the explained page; a program, the code to branch on. Nothing was taken.
    return {
      status: 429,
      code: 'too_many_places',
      message: `${error.message} Come back once one of them has had its turn.`,
      headers: { 'retry-after': '60' },
    };
  }
  if (error instanceof FanoutUnavailableError) {
    log.warn({ err: error.cause ?? error }, 'realtime fanout unavailable');
    // The caller (our own release publisher, or the site's backend) may send the event again.
    return {
      status: 503,
      code: 'realtime_unavailable',
      message: 'The event could not reach every instance; try again in a moment.',
      headers: { 'retry-after': '2' },
    };
  }
  const fastify = error as FastifyError;
  // Input that breaks a route's schema: the schema says what to answer.
  if (fastify.validation) return validationAnswer(fastify);
  const known = fastify.code ? FASTIFY_ERRORS[fastify.code] : undefined;
  if (known) return known;
  if (fastify.statusCode !== undefined && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return { status: fastify.statusCode, code: 'bad_request', message: error.message };
  }
  log.error({ err: error }, 'unexpected error');
  return { status: 500, code: 'internal_error', message: 'Something went wrong on our side.' };
}

/**
 * An error's body for whoever asked: a page in their language for a person (the one they chose on
 * the waiting page, else their browser's), JSON for a program.
 */
export function errorRepresentation(
  answer: ErrorAnswer,
  headers: IncomingHttpHeaders,
  languages: Languages,
  method = 'GET',
): { readonly contentType: string; readonly body: string } {
  if (prefersHtml(headers.accept)) {
    const language = languages.choose({ headers });
    const back = sameSiteReferrer(headers.referer, headers.host);
    // Only a GET is safe to send again by itself: a form's body would be lost in the reload.
    const retry = answer.code === 'store_unavailable' && method === 'GET' ? Number(answer.headers?.['retry-after']) : undefined;
    return { contentType: 'text/html; charset=utf-8', body: renderErrorPage(answer.status, answer.code, language, back, retry) };
  }
  return {
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(errorBody(answer.code, answer.message)),
  };
}

/** The request headers an error answer depends on (the cookie: a language chosen on the waiting page). */
export const ERROR_VARY = ['Accept', 'Accept-Language', 'Cookie'];

/** Sends `answer` as `errorRepresentation` says, never cached. */
export function sendError(request: FastifyRequest, reply: FastifyReply, answer: ErrorAnswer): FastifyReply {
  const { contentType, body } = errorRepresentation(answer, request.headers, request.server.languages, request.method);
  return reply
    .code(answer.status)
    .headers({ ...answer.headers })
    .header('cache-control', 'no-store')
    .header('vary', withVary(reply.getHeader('vary'), ERROR_VARY))
    .type(contentType)
    .send(body);
}

function withVary(existing: ReturnType<FastifyReply['getHeader']>, added: readonly string[]): string {
  const values = (Array.isArray(existing) ? existing.join(',') : String(existing ?? ''))
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  for (const value of added) {
    if (!values.some((present) => present.toLowerCase() === value.toLowerCase())) values.push(value);
  }
  return values.join(', ');
}

/** The methods a route may answer, tried when a path is routed for none of them but another. */
const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** 405 with `Allow` when the path has routes for other methods, else 404. */
function notRouted(app: FastifyInstance, request: FastifyRequest): ErrorAnswer {
  // request.url is the normalized target (see http/target.ts): the router read this one.
  const path = request.url.split('?')[0] ?? '/';
  // The gateway's catch-all (`/*`, the origin's) matches every path; on the waiting room's own
  // paths, only their own routes count.
  const own = isOwnPath(path);
  const allowed = ROUTE_METHODS.filter((method) => {
    const route = app.findRoute({ method, url: path });
    return route !== null && !(own && '*' in (route.params as Record<string, string>));
  });
  if (allowed.length > 0) {
    return {
      status: 405,
      code: 'method_not_allowed',
      message: `${request.method} is not allowed at ${path}; use ${allowed.join(', ')}.`,
      headers: { allow: allowed.join(', ') },
    };
  }
  return { status: 404, code: 'not_found', message: `Nothing at ${request.method} ${path}.` };
}

/**
 * Answers every error the routes, hooks and Fastify raise, and requests no route takes, as
 * `{error: {code, message}}` with the right status (an HTML page for a browser, see
 * `errorRepresentation`). Fastify's `frameworkErrors` and `clientErrorHandler` options cover
 * what happens before routing (`createFastify`).
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendError(request, reply, errorAnswer(error, request.log)));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, notRouted(app, request)));
}

/** Fastify's `frameworkErrors` option: errors met while routing, in the same contract. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(request, reply, errorAnswer(error, request.log));
}
