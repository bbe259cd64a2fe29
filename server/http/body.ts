import { parse as parseForm } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as received, kept so a held request replays byte for byte. */
    rawBody?: string;
  }
}

export const FORM = 'application/x-www-form-urlencoded';
export const JSON_TYPE = 'application/json';

/**
 * Parses JSON and form bodies, keeping the raw text on `request.rawBody`: the events API
 * checks its MD5, and a held request is replayed with exactly the body it was sent with.
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(JSON_TYPE);
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    // The default JSON parser is the callback kind: it answers through `done`, and returns nothing.
    void parseJson(request, body as string, (error, value) => {
      if (error) done(new HttpError(400, 'malformed_json', 'The body is not valid JSON.'), undefined);
      else done(null, value);
    });
  });
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    done(null, parseBody(FORM, body as string));
  });
}

/** Parses a body of one of the accepted types, as the parsers above do. */
export function parseBody(contentType: string, raw: string): unknown {
  if (contentType.startsWith(JSON_TYPE)) return JSON.parse(raw) as unknown;
  // node:querystring gives a null-prototype object, so a field named __proto__ stays a field.
  return parseForm(raw);
}
