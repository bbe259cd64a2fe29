import { gunzipSync } from 'node:zlib';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SinkLimits } from '../../process/config';
import { HttpError } from '../errors';
import { errorResponses } from '../openapi';
import type { ErrorLog } from '../sink/error-log';
import { ENVELOPE_LIMITS, EnvelopeError, parseEnvelope, reportedEvents } from '../sink/envelope';

/** Envelopes carry stack traces and breadcrumbs: larger than the other bodies. */
const ENVELOPE_LIMIT = 1024 * 1024;
/** Most bytes a gzipped envelope may inflate to. */
const INFLATED_LIMIT = 4 * ENVELOPE_LIMIT;
const RATE_WINDOW_MS = 60_000;

export interface SinkOptions {
  /** Where reports are kept; it cuts them to its byte caps (`messageBytes`, `totalBytes`). */
  readonly errors: ErrorLog;
  /** `config.sink`; the route itself uses `reportsPerMinute`. */
  readonly limits: Pick<SinkLimits, 'reportsPerMinute'>;
  /** Told how many events each envelope reported (the metrics). */
  readonly received?: (count: number) => void;
}

/**
 * The local error-report sink: accepts the Sentry SDK's envelope POSTs at
 * `/api/{projectId}/envelope/`, logs each reported event once (cut as kept) and keeps it for
 * `GET /admin/errors`.
 *
 * What one client may cost is bounded: `reportsPerMinute` envelope POSTs a minute per client
 * address (`request.ip`, which follows TRUST_PROXY), both URLs counted together, past which the
 * sink answers 429 `rate_limited` with `Retry-After` (which the SDK obeys) before reading the
 * body; 1 MiB a body, 4 MiB inflated (413 past either); `ENVELOPE_LIMITS` on the items parsed
 * (400 past them) and the first 10 events of an envelope kept.
 */
export async function sinkRoutes(app: FastifyInstance, options: SinkOptions): Promise<void> {
  // The SDKs send envelopes as text/plain or application/x-sentry-envelope: take every body as bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ENVELOPE_LIMIT }, (_request, body, done) => done(null, body));

  // First, so that refusals (429 included) reach the page too: it may reach us by another host
  // name than the one in its DSN, and the SDK reads Retry-After to back off.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', 'retry-after');
  });

  // Registered in this scope only: it limits the sink's routes, with one counter for both URLs.
  await app.register(rateLimit, {
    global: true,
    max: options.limits.reportsPerMinute,
    timeWindow: RATE_WINDOW_MS,
    // The plugin throws what this returns; the app's error handler answers an HttpError as the contract body.
    errorResponseBuilder: (_request, context) => new HttpError(429, 'rate_limited', `Too many error reports from this address; retry in ${context.after}.`),
  });

  const receive = async (request: FastifyRequest) => {
    let body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (request.headers['content-encoding'] === 'gzip') body = inflate(body);
    let events;
    try {
      events = reportedEvents(parseEnvelope(body, ENVELOPE_LIMITS), ENVELOPE_LIMITS.maxEvents);
    } catch (error) {
      if (error instanceof EnvelopeError) throw new HttpError(400, 'bad_envelope', error.message);
      throw error;
    }
    options.received?.(events.length);
    const receivedAt = new Date().toISOString();
    for (const event of events) {
      const { message, ...report } = options.errors.add({ ...event, receivedAt });
      request.log.warn({ report }, `page reported: ${message}`);
    }
    return { received: events.length };
  };

  const schema = {
    summary: 'The local error sink: a Sentry envelope',
    description: "The Sentry SDK's envelope, as text/plain or application/x-sentry-envelope, optionally gzipped; 429 past ERROR_REPORTS_PER_MINUTE.",
    tags: ['waiting page'],
    params: { type: 'object', properties: { projectId: { type: 'string' } } },
    response: { 200: { type: 'object', properties: { received: { type: 'integer' } } }, ...errorResponses(400, 413, 429) },
  };
  for (const url of ['/api/:projectId/envelope/', '/api/:projectId/envelope']) {
    app.post(url, { schema }, async (request) => receive(request));
  }
}

/** Inflates a gzipped envelope, up to `INFLATED_LIMIT` bytes. */
function inflate(body: Buffer): Buffer {
  try {
    return gunzipSync(body, { maxOutputLength: INFLATED_LIMIT });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new HttpError(413, 'payload_too_large', `The envelope inflates to more than ${INFLATED_LIMIT} bytes.`);
    }
    throw new HttpError(400, 'bad_envelope', 'The gzip body cannot be read.');
  }
}
