import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseForm } from 'node:querystring';

/** The user id the test origin names for `name` (a stable hash, never 0). */
export function userIdFor(name: string): number {
  return Array.from(name).reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) % 2147483647, 7) || 1;
}

/** One request as the origin received it. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** An origin for the gateway's tests: it records what it receives and answers simply. */
export interface TestOrigin {
  readonly url: string;
  /** Every request received, oldest first. */
  readonly received: Received[];
  /** Those received at `path` (without the query). */
  at(path: string): Received[];
  close(): Promise<void>;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/**
 * A site that knows nothing of the waiting room but the optional `Waiting-Room-User` header, unless
 * `answer` says otherwise: `/` has a form with a token, `POST /login` (form `name`) signs in and names the user,
 * `POST /logout` signs out, `/checkout` echoes method, query, content type and form fields,
 * anything else answers 200 with its path. Nothing is checked: the tests read `received`.
 */
export async function startTestOrigin(answer: Answer = answerAsShop): Promise<TestOrigin> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      answer(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((one) => one.url.split('?')[0] === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How a test origin answers a request, once its body has arrived (and been recorded). */
export type Answer = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;

/** The shop described at `startTestOrigin`. */
function answerAsShop(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
  const url = new URL(request.url ?? '/', 'http://origin');
  if (url.pathname === '/login' && request.method === 'POST') {
    const name = String(parseForm(body.toString()).name ?? '');
    const userId = userIdFor(name);
    response.writeHead(303, { location: '/', 'set-cookie': `shop=${encodeURIComponent(name)}; Path=/`, 'waiting-room-user': String(userId) });
    response.end();
    return;
  }
  if (url.pathname === '/logout' && request.method === 'POST') {
    response.writeHead(303, { location: '/', 'set-cookie': 'shop=; Path=/; Max-Age=0', 'waiting-room-user': '0' });
    response.end();
    return;
  }
  if (url.pathname === '/') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      '<h1>A shop</h1><form method="post" action="/login"><input type="hidden" name="_token" value="origin-token"><input name="name"></form><a href="/checkout?item=42">Checkout</a>',
    );
    return;
  }
  if (url.pathname.toLowerCase().startsWith('/checkout')) {
    const fields = Object.entries(parseForm(body.toString()));
    const rows = (entries: Array<[string, unknown]>) =>
      entries.map(([name, value]) => `<tr><th>${escape(name)}</th><td>${escape(String(value))}</td></tr>`).join('');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(
      `<h1>Checkout</h1><p>You are through: a <strong>${escape(request.method ?? '')}</strong> request.</p>` +
        `<p>Content-Type: ${escape(String(request.headers['content-type'] ?? ''))}</p>` +
        `<table>${rows([...url.searchParams.entries()])}</table><table>${rows(fields)}</table>`,
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`origin: ${request.method} ${request.url}`);
}
