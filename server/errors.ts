import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FanoutUnavailableError } from './realtime/fanout-error';
import { StoreUnavailableError } from './store/errors';

/** An error the visitor or client caused, answered as `{error: {code, message}}` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The JSON error body every route answers with. */
export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** Fastify's own errors, named for clients. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
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
};

/**
 * Answers every error as JSON `{error: {code, message}}` with the right status, and never
 * shows a stack trace: unexpected errors are logged and answered as a plain 500.
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) {
      return reply.code(error.status).send(errorBody(error.code, error.message));
    }
    if (error instanceof StoreUnavailableError) {
      request.log.warn({ err: error.cause ?? error }, 'queue store unavailable');
      // Nothing is lost: the place in line is kept in the store, and the page polls again.
      return reply
        .code(503)
        .header('retry-after', '2')
        .send(errorBody('store_unavailable', 'The waiting room is busy; try again in a moment.'));
    }
    if (error instanceof FanoutUnavailableError) {
      request.log.warn({ err: error.cause ?? error }, 'realtime fanout unavailable');
      // The caller (our own release publisher, or the site's backend) may send the event again.
      return reply
        .code(503)
        .header('retry-after', '2')
        .send(errorBody('realtime_unavailable', 'The event could not reach every instance; try again in a moment.'));
    }
    const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
    if (known) {
      return reply.code(known.status).send(errorBody(known.code, known.message));
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody('bad_request', error.message));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send(errorBody('internal_error', 'Something went wrong on our side.'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('not_found', `Nothing at ${request.method} ${request.url.split('?')[0]}.`));
  });
}
