import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { clientErrorAnswer, ERROR_VARY, errorRepresentation, type ErrorAnswer } from './errors';
import type { Languages } from './languages';
import { ERROR_PAGE_STYLES } from './error-page';
import { pagePolicy, securityHeaders } from './security-headers';

const ERROR_PAGE_POLICY = pagePolicy(ERROR_PAGE_STYLES);

/** The request each connection is receiving or answering, as Node handed it over. */
const current = new WeakMap<Socket, { readonly req: IncomingMessage; readonly res: ServerResponse }>();

/**
 * A listener for the HTTP server's `request` event: remembers which request a connection
 * carries, so that an error on the connection (a body that arrives too slowly) can be
 * answered in the form that request asks for (an HTML page for a browser).
 */
export function trackRequest(req: IncomingMessage, res: ServerResponse): void {
  current.set(req.socket, { req, res });
}

/**
 * Fastify's `clientErrorHandler`: answers what Node's HTTP parser refused (malformed HTTP 400,
 * headers too large 431, too slow 408) in the error contract, then closes the connection. When
 * part of a response was already written, nothing more can be said on it: it is only closed.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A connection reset has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(error);
  this.log.debug({ err: error }, `client error: ${answer.code}`);
  const tracked = current.get(socket);
  // A keep-alive connection's finished exchange belongs to an earlier request.
  const exchange = tracked && !tracked.res.writableEnded ? tracked : undefined;
  if (socket.writable && !exchange?.res.headersSent) {
    // Only a request still being received asked anything of this answer; one the parser refused
    // asked in the bytes it had received.
    const req = exchange && !exchange.req.complete ? exchange.req : undefined;
    socket.write(rawErrorResponse(answer, req?.headers ?? negotiationHeadersIn(error.rawPacket), this.languages, req?.method));
  }
  socket.destroy();
}

/**
 * The Accept, Accept-Language and Cookie (a language chosen on the waiting page) headers of a request the parser refused, read from the bytes
 * it had received (Node's `rawPacket`): a browser whose cookies grew too large for the headers
 * gets the page too. They choose how the error looks, nothing else.
 */
export function negotiationHeadersIn(packet: unknown): IncomingHttpHeaders {
  if (!Buffer.isBuffer(packet)) return {};
  const text = packet.toString('latin1');
  const headers: IncomingHttpHeaders = {};
  for (const name of ['accept', 'accept-language', 'cookie'] as const) {
    const value = new RegExp(`\\r\\n${name}:[ \\t]*([\\x20-\\x7e]*)\\r\\n`, 'i').exec(text)?.[1];
    if (value !== undefined) headers[name] = value.trim();
  }
  return headers;
}

/** A whole HTTP/1.1 error response, written straight to the socket. */
export function rawErrorResponse(answer: ErrorAnswer, headers: IncomingHttpHeaders, languages: Languages, method?: string): string {
  const { contentType, body } = errorRepresentation(answer, headers, languages);
  const sent = method === 'HEAD' ? '' : body;
  const fields = {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    vary: ERROR_VARY.join(', '),
    connection: 'close',
    ...securityHeaders(contentType, ERROR_PAGE_POLICY),
    ...answer.headers,
  };
  const lines = Object.entries(fields).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${sent}`;
}
