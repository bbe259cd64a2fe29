import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fieldsOf, textField } from '../body';
import { HttpError } from '../errors';
import { escapeHtml, layout } from '../html';
import { effectiveMethod, replayOf } from '../replay';
import { checkCsrf, ensureSession, requireSession, signIn, startSession, type Session } from '../session';
import type { QueueStore } from '../store/types';

export interface DemoRouteOptions {
  /** Where sign-in moves the visitor's place in line to their new session. */
  readonly store: QueueStore;
}

/** A stable numeric user id for a name, the same on every instance. */
export function userIdFor(name: string): number {
  return (createHash('sha256').update(name.toLowerCase()).digest().readUInt32BE(0) & 0x7fffffff) || 1;
}

/**
 * The demo site: a home page (not protected) with links and forms, sign in and out, and the
 * protected checkout, which echoes what it received so a replay can be seen to be exact.
 */
export async function demoRoutes(app: FastifyInstance, options: DemoRouteOptions): Promise<void> {
  const { store } = options;

  app.get('/', async (request, reply) => {
    const session = ensureSession(request, reply);
    return html(reply, layout('Home', userBox(session), home(session)));
  });

  // Browsers ask for it on every page; a 204 keeps their consoles free of 404s.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('cache-control', 'max-age=86400').send());

  app.post('/login', async (request, reply) => {
    const fields = fieldsOf(request);
    const session = requireSession(request);
    checkCsrf(session, fields._token);
    const name = signInName(textField(fields, 'name'));
    await signIn(request, reply, session, { userId: userIdFor(name), name }, store);
    return reply.redirect('/', 303);
  });

  app.post('/logout', async (request, reply) => {
    checkCsrf(requireSession(request), fieldsOf(request)._token);
    startSession(request, reply, { userId: 0 });
    return reply.redirect('/', 303);
  });

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/checkout',
    handler: async (request, reply) => {
      const session = ensureSession(request, reply);
      return html(reply, layout('Checkout', userBox(session), checkout(request)));
    },
  });
}

/**
 * Control characters (C0 and C1: line breaks, NUL, terminal escapes) could forge log lines, and
 * text-direction overrides and isolates could make a name read as another. The zero-width
 * joiners stay: Persian writing and emoji sequences need them.
 */
const FORBIDDEN_IN_NAMES = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** The name as shown and hashed: NFC, so that one name has one user id however it was typed. */
function signInName(raw: string | undefined): string {
  const name = (raw ?? '').normalize('NFC').trim();
  if (FORBIDDEN_IN_NAMES.test(name)) {
    throw new HttpError(400, 'bad_name', 'The name may not contain control or text-direction characters.');
  }
  if (name.length < 1 || name.length > 40) {
    throw new HttpError(400, 'bad_name', 'The name must be 1 to 40 characters long.');
  }
  return name;
}

function html(reply: FastifyReply, page: string): FastifyReply {
  return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
}

function userBox(session: Session): string {
  if (!session.userId) return '<span class="muted">Anonymous visitor</span>';
  return `Signed in as <strong>${escapeHtml(session.name ?? `user ${session.userId}`)}</strong>
    <span class="muted">(#${session.userId})</span>
    <form class="inline" method="post" action="/logout">${token(session)}
      <button class="secondary" type="submit">Sign out</button></form>`;
}

function token(session: Session): string {
  return `<input type="hidden" name="_token" value="${escapeHtml(session.csrfToken)}">`;
}

function home(session: Session): string {
  const signIn = session.userId
    ? `<p>You listen for your release on a <strong>private</strong> channel, authorized by <code>/pusher/auth</code>.</p>`
    : `<form method="post" action="/login">${token(session)}
        <label for="name">Sign in with any name (no password: it is a demo)</label>
        <input id="name" name="name" type="text" maxlength="40" required placeholder="Ada">
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">Anonymous visitors listen on a public channel named after their place in line.</p>`;
  return `<h1>A shop with a waiting room</h1>
<p>The checkout is protected. When more visitors want it than it can serve, you wait in line on the
waiting page, and it takes you through the moment it is your turn, request and form data intact.</p>
<div class="card">
  <h2>Sign in (optional)</h2>
  ${signIn}
</div>
<div class="card">
  <h2>Go to the checkout</h2>
  <p><a class="button" href="/checkout?item=42">Open the checkout (GET)</a></p>
  <form method="post" action="/checkout?item=42">${token(session)}
    <label for="quantity">Quantity</label>
    <input id="quantity" name="quantity" type="number" min="1" value="1">
    <label for="note">Note to the shop</label>
    <textarea id="note" name="note" rows="2" placeholder="Gift wrap, please"></textarea>
    <button type="submit">Place the order (POST)</button>
  </form>
</div>
<p class="muted">Open this page in a few private windows to fill the line. An operator releases
visitors with the admin API (<code>POST /admin/release</code>) or lets the release loop do it.</p>`;
}

function checkout(request: FastifyRequest): string {
  const replay = replayOf(request);
  const method = effectiveMethod(request);
  const query = new URL(request.url, 'http://localhost').searchParams;
  const fields = Object.entries(
    typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {},
  ).filter(([name]) => name !== '_token');
  const rows = (entries: Array<[string, unknown]>) =>
    entries.length === 0
      ? '<p class="muted">None.</p>'
      : `<table>${entries
          .map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(display(value))}</td></tr>`)
          .join('')}</table>`;
  return `<h1>Checkout</h1>
<p>You are through: this is the protected page, answering a <strong>${escapeHtml(method)}</strong>
${replay ? 'replayed from the waiting room.' : 'request.'}</p>
<div class="card"><h2>Query</h2>${rows([...query.entries()])}</div>
${method === 'GET' ? '' : `<div class="card"><h2>Form fields received</h2>${rows(fields)}</div>`}
<p><a href="/">Back to the shop</a></p>`;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
