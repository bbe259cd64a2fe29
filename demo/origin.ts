import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parse as parseForm } from 'node:querystring';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BUY_SCRIPT, buyPage } from './buy';
import { checkoutPage, homePage, messagePage, type Visitor } from './layout';

/**
 * A small shop, as an ordinary website: its own session cookie, its own CSRF checks, and a
 * checkout that echoes what it received. Whatever runs in front of it (a proxy, a gateway) is
 * invisible to it, so the shop's own checks are what protect it.
 */

export interface DemoOriginOptions {
  /** Signs the session cookie; a random one (sessions end with the process) when not given. */
  readonly secret?: string;
  /** Fastify's log level; `silent` when not given. */
  readonly logLevel?: string;
  /**
   * The address of a waiting room's script for the single-page checkout (`/buy`), whose
   * `heldFetch` then places the order; none when not given (the page uses `fetch`).
   */
  readonly waitingRoomScript?: string;
}

export interface StartDemoOriginOptions extends DemoOriginOptions {
  /** 0 (the default): a free port. */
  readonly port?: number;
  /** `127.0.0.1` when not given. */
  readonly host?: string;
}

export interface StartedDemoOrigin {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export const SESSION_COOKIE = 'shop_session';
const FORM = 'application/x-www-form-urlencoded';
const CSRF_HEADER = 'x-csrf-token';
const MAX_NAME_LENGTH = 40;

interface Session extends Visitor {
  readonly id: string;
}

/** A refused request: `message` for programs (JSON), `pageText` for people (HTML) when it differs. */
class ShopError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly pageText: string = message,
  ) {
    super(message);
  }
}

/** Routes whose clients are programs: their errors are JSON whatever the Accept header says. */
const API_ROUTES = new Set(['/api/session', '/checkout/api']);

export function buildDemoOrigin(options: DemoOriginOptions = {}): FastifyInstance {
  const app = Fastify({ logger: { level: options.logLevel ?? 'silent' } });
  app.register(fastifyCookie, { secret: options.secret ?? randomBytes(32).toString('base64url') });
  // node:querystring gives a null-prototype object, so a field named __proto__ stays a field.
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => done(null, parseForm(body as string)));
  // Every answer depends on the visitor's session: no shared cache may keep one for another.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(request, reply, asShopError(error, request)));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const text = 'There is no page at this address.';
    sendError(request, reply, new ShopError(404, 'not_found', `Nothing at ${request.method} ${path}.`, text));
  });
  // Registered after the cookie plugin, so that every route sees the parsed cookies.
  app.register(shopRoutes, { waitingRoomScript: options.waitingRoomScript });
  return app;
}

export async function startDemoOrigin(options: StartDemoOriginOptions = {}): Promise<StartedDemoOrigin> {
  const app = buildDemoOrigin(options);
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    async close() {
      // A request still under way (a proxy's kept-alive connection mid-request) may hold a close
      // for ever; after a short grace every connection goes.
      const force = setTimeout(() => app.server.closeAllConnections(), 2000);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
    },
  };
}

async function shopRoutes(app: FastifyInstance, { waitingRoomScript }: { waitingRoomScript?: string }): Promise<void> {
  // Orders the API took, since the shop started: each answer says its number.
  let orders = 0;

  app.get('/', async (request, reply) => html(reply, homePage(ensureSession(request, reply))));

  app.get('/buy', async (request, reply) => html(reply, buyPage(ensureSession(request, reply), waitingRoomScript), scriptPolicy(waitingRoomScript)));

  app.get('/buy.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(BUY_SCRIPT));

  // How many orders the API took: a program (a test, a monitor) counts what reached the shop.
  app.get('/api/orders', async (_request, reply) => reply.send({ received: orders }));

  // Browsers ask for it on every page; a 204 keeps their consoles free of 404s.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('cache-control', 'max-age=86400').send());

  app.post('/login', async (request, reply) => {
    checkCsrf(readSession(request), [field(request.body, '_token')]);
    const name = signInName(field(request.body, 'name'));
    // A new id at sign-in: a session id planted before it (session fixation) is worth nothing after.
    writeSession(request, reply, { id: randomUUID(), csrfToken: newCsrfToken(), name });
    return reply.redirect('/', 303);
  });

  // A fresh session, so that on a shared browser the next person starts from nothing.
  app.post('/logout', async (request, reply) => {
    checkCsrf(readSession(request), [field(request.body, '_token')]);
    writeSession(request, reply, { id: randomUUID(), csrfToken: newCsrfToken() });
    return reply.redirect('/', 303);
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/checkout',
    handler: async (request, reply) => {
      const safe = request.method === 'GET' || request.method === 'HEAD';
      const session = safe
        ? ensureSession(request, reply)
        : // A form sends its token as a field; a script may send it as a header.
          checkCsrf(readSession(request), [field(request.body, '_token'), header(request, CSRF_HEADER)]);
      return html(
        reply,
        checkoutPage(session, {
          method: request.method,
          query: queryEntries(request),
          contentType: header(request, 'content-type'),
          body: request.body,
        }),
      );
    },
  });

  app.post('/checkout/api', async (request, reply) => {
    checkCsrf(readSession(request), [header(request, CSRF_HEADER)], 'The X-CSRF-Token header is missing or wrong: ask GET /api/session for the token.');
    if (mediaType(request) !== 'application/json') {
      throw new ShopError(415, 'unsupported_media_type', 'Send the order as JSON (application/json).');
    }
    const query = Object.create(null) as Record<string, string | string[]>;
    for (const [name, value] of queryEntries(request)) {
      const previous = query[name];
      query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
    orders += 1;
    return reply.send({ ok: true, order: orders, method: request.method, query, received: request.body });
  });

  // A fetch-based client has no form to read the token from: it asks here, and gets the cookie too.
  app.get('/api/session', async (request, reply) => {
    const session = ensureSession(request, reply);
    return reply.send({ csrfToken: session.csrfToken, name: session.name ?? null });
  });
}

/**
 * Control characters (C0 and C1: line breaks, NUL, terminal escapes) could forge log lines, and
 * text-direction overrides and isolates could make a name read as another. The zero-width
 * joiners stay: Persian writing and emoji sequences need them.
 */
const FORBIDDEN_IN_NAMES = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** The name as shown: NFC, so that one name looks and compares the same however it was typed. */
function signInName(raw: string | undefined): string {
  const name = (raw ?? '').normalize('NFC').trim();
  if (FORBIDDEN_IN_NAMES.test(name)) {
    throw new ShopError(400, 'bad_name', 'The name may not contain control or text-direction characters.');
  }
  if (name.length < 1 || name.length > MAX_NAME_LENGTH) {
    throw new ShopError(400, 'bad_name', `The name must be 1 to ${MAX_NAME_LENGTH} characters long.`);
  }
  return name;
}

// --- Session: kept whole in a signed cookie, so the shop needs no store. ---

function readSession(request: FastifyRequest): Session | undefined {
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie === undefined) return undefined;
  const unsigned = request.unsignCookie(cookie);
  return unsigned.valid && unsigned.value !== null ? decode(unsigned.value) : undefined;
}

function ensureSession(request: FastifyRequest, reply: FastifyReply): Session {
  return readSession(request) ?? writeSession(request, reply, { id: randomUUID(), csrfToken: newCsrfToken() });
}

function writeSession(request: FastifyRequest, reply: FastifyReply, session: Session): Session {
  reply.setCookie(SESSION_COOKIE, encode(session), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
  });
  return session;
}

function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

function encode(session: Session): string {
  return Buffer.from(JSON.stringify([session.id, session.csrfToken, session.name ?? null])).toString('base64url');
}

function decode(value: string): Session | undefined {
  try {
    const [id, csrfToken, name] = JSON.parse(Buffer.from(value, 'base64url').toString()) as unknown[];
    if (typeof id !== 'string' || typeof csrfToken !== 'string') return undefined;
    if (typeof name === 'string') return { id, csrfToken, name };
    return name === null ? { id, csrfToken } : undefined;
  } catch {
    return undefined;
  }
}

/** The session, when one of `given` is its token; a 419 otherwise. */
function checkCsrf(session: Session | undefined, given: ReadonlyArray<string | undefined>, message = 'This form has expired: go back and try again.'): Session {
  const expected = session ? digest(session.csrfToken) : undefined;
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const matches = given.some((token) => expected && token !== undefined && timingSafeEqual(digest(token), expected));
  if (!session || !matches) throw new ShopError(419, 'csrf_mismatch', message);
  return session;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

// --- Request and reply helpers. ---

/** A single text field of a form or JSON object body; undefined when absent, repeated or not text. */
function field(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null || !Object.hasOwn(body, name)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function mediaType(request: FastifyRequest): string | undefined {
  return header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
}

/** The query in the order sent, repeated names kept. */
function queryEntries(request: FastifyRequest): Array<[string, string]> {
  const at = request.url.indexOf('?');
  return at === -1 ? [] : [...new URLSearchParams(request.url.slice(at + 1))];
}

/** The pages need their inline style and nothing else: an echoed value that slipped through runs nowhere. */
const PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  // The shop's own scripts may call its API (and, through the gateway, wait in line).
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The single-page checkout's policy: the page policy, and scripts from the shop itself and from
 * the waiting room's script's origin when it names another (a relative address is the shop's own,
 * as behind a gateway that serves it). Its realtime connection and calls go to the same places.
 */
function scriptPolicy(waitingRoomScript: string | undefined): string {
  const other = waitingRoomScript && /^https?:\/\//i.test(waitingRoomScript) ? new URL(waitingRoomScript) : undefined;
  const sources = other ? ` ${other.origin} ${other.origin.replace(/^http/, 'ws')}` : '';
  return PAGE_POLICY.replace("connect-src 'self'", `connect-src 'self'${sources}`) + `; script-src 'self'${other ? ` ${other.origin}` : ''}`;
}

function html(reply: FastifyReply, page: string, policy = PAGE_POLICY): FastifyReply {
  return reply.header('content-security-policy', policy).header('x-content-type-options', 'nosniff').type('text/html; charset=utf-8').send(page);
}

// --- Errors: a short page for people, `{error: {code, message}}` for programs. ---

const TITLES: Record<number, string> = {
  400: 'Bad request',
  404: 'Page not found',
  413: 'Too large',
  415: 'Not accepted',
  419: 'Page expired',
};

function asShopError(error: FastifyError | ShopError, request: FastifyRequest): ShopError {
  if (error instanceof ShopError) return error;
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
    return new ShopError(status, code, error.message);
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ShopError(500, 'internal_error', 'Something went wrong on our side; try again later.');
}

/** HTML on the shop's pages and for browsers elsewhere; JSON on the API and for other clients. */
function wantsHtml(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route !== undefined && !request.is404) return !API_ROUTES.has(route);
  return (request.headers.accept ?? '').toLowerCase().includes('text/html');
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: ShopError): FastifyReply {
  reply.code(error.status);
  if (wantsHtml(request)) {
    return html(reply, messagePage(TITLES[error.status] ?? 'Something went wrong', error.pageText));
  }
  return reply.send({ error: { code: error.code, message: error.message } });
}

/** The shop as the waiting room's default origin (`npm start` without UPSTREAM). */
export const demoShop = { name: 'the demo shop', start: startDemoOrigin };
