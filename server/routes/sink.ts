import { gunzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors';
import type { ErrorLog } from '../sink/error-log';
import { EnvelopeError, parseEnvelope, reportedEvents } from '../sink/envelope';

/** Envelopes carry stack traces and breadcrumbs: larger than the other bodies. */
const ENVELOPE_LIMIT = 1024 * 1024;

/**
 * The local error-report sink: accepts the Sentry SDK's envelope POSTs at
 * `/api/{projectId}/envelope/`, logs each reported event and keeps it for `GET /admin/errors`.
 */
export async function sinkRoutes(app: FastifyInstance, options: { errors: ErrorLog }): Promise<void> {
  // The SDKs send envelopes as text/plain or application/x-sentry-envelope: take every body as bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ENVELOPE_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  const receive = async (request: FastifyRequest) => {
    let body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (request.headers['content-encoding'] === 'gzip') {
      try {
        body = gunzipSync(body, { maxOutputLength: 4 * ENVELOPE_LIMIT });
      } catch {
        throw new HttpError(400, 'bad_envelope', 'The gzip body cannot be read.');
      }
    }
    let events;
    try {
      events = reportedEvents(parseEnvelope(body));
    } catch (error) {
      if (error instanceof EnvelopeError) throw new HttpError(400, 'bad_envelope', error.message);
      throw error;
    }
    const receivedAt = new Date().toISOString();
    for (const event of events) {
      request.log.warn({ report: event }, `page reported: ${event.message}`);
      options.errors.add({ ...event, receivedAt });
    }
    return { received: events.length };
  };

  for (const url of ['/api/:projectId/envelope/', '/api/:projectId/envelope']) {
    app.post(url, async (request, reply) => {
      // The page may reach us by another host name than the one in its DSN.
      reply.header('access-control-allow-origin', '*');
      return receive(request);
    });
  }
}
