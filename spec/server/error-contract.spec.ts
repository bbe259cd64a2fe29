import { EXPLAINED_CODES, TITLED_STATUSES, explanation, renderErrorPage, sameSiteReferrer } from '../../server/http/error-page';
import { createLanguages } from '../../server/http/languages';
import { ENGLISH, LOCALES, type Locale } from '../../locales';
import { ManualClock } from './support/manual-clock';
import { parseResponse, rawExchange, rawRequest, openRaw, readUntilClosed, type RawAnswer } from './support/raw-http';
import { admin, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** What a browser sends when a person follows a link or submits a form. */
const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

type Headers = Record<string, string>;

const FORM = 'application/x-www-form-urlencoded';

/** Every kind of error met before, while and after routing, each sent with the headers given. */
const ERRORS: Array<[string, (headers: Headers) => string, number, string]> = [
  ['a malformed target (GET /%)', (h) => rawRequest('GET', '/%', h), 400, 'bad_request_target'],
  ['a target with a fragment', (h) => rawRequest('GET', '/checkout#x', h), 400, 'bad_request_target'],
  ["an unknown path under the waiting room's routes", (h) => rawRequest('GET', '/queue/nowhere', h), 404, 'not_found'],
  [
    'a path parameter too long for the router (a path the waiting room does not route)',
    (h) => rawRequest('GET', `/queue/info/${'a'.repeat(150)}`, h),
    404,
    'not_found',
  ],
  ['a method the path does not take', (h) => rawRequest('PROPFIND', '/checkout', h), 405, 'method_not_allowed'],
  [
    'a malformed Content-Length',
    (h) => rawRequest('POST', '/queue/request', { ...h, 'content-type': 'application/json', 'content-length': '12abc' }),
    400,
    'bad_request',
  ],
  ['headers too large', (h) => rawRequest('GET', '/', { ...h, cookie: `${h.cookie ? `${h.cookie}; ` : ''}c=${'x'.repeat(20_000)}` }), 431, 'headers_too_large'],
  ['a malformed request line', (h) => rawRequest('GET', '/checkout', h).replace('HTTP/1.1', 'HTTX/1.1'), 400, 'bad_request'],
  ['a body too large', (h) => rawRequest('POST', '/queue/request', { ...h, 'content-type': FORM }, `uuid=${'x'.repeat(70_000)}`), 413, 'payload_too_large'],
  [
    "a protected request's body too large to hold",
    (h) => rawRequest('POST', '/checkout', { ...h, 'content-type': FORM }, `note=${'x'.repeat(70_000)}`),
    413,
    'payload_too_large',
  ],
  [
    'a body of a type nobody reads',
    (h) => rawRequest('POST', '/queue/request', { ...h, 'content-type': 'application/xml' }, '<uuid/>'),
    415,
    'unsupported_media_type',
  ],
  ['a form sent once the session is gone', (h) => rawRequest('POST', '/queue/request', { ...h, 'content-type': FORM }, 'uuid=x'), 419, 'session_expired'],
];

describe('the error contract', () => {
  let server: StartedWithOrigin;

  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
  });
  afterAll(() => server.close());

  const send = (request: (headers: Headers) => string, headers: Headers = {}) => rawExchange(server.port, request(headers));

  describe.each([
    ['no Accept', {}],
    ['Accept: */*, as fetch sends', { accept: '*/*' }],
    ['Accept: application/json', { accept: 'application/json', 'accept-language': 'fr' }],
    ['JSON and HTML alike', { accept: 'application/json, text/html' }],
  ])('for an API client (%s)', (_name, headers) => {
    it.each(ERRORS)('should answer %s as {error: {code, message}}', async (_what, request, status, code) => {
      const answer = await send(request, headers);

      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.json).toEqual({ error: { code, message: expect.any(String) } });
      // No Fastify code, no stack frame ("at fn (file:line:column)"), nothing of the server's files.
      expect(answer.body).not.toMatch(/FST_|statusCode|\bat .*\(.*:\d+:\d+\)|node_modules/);
    });
  });

  describe.each([
    ['en', { accept: NAVIGATION }, 'Error', 'Go to the home page'],
    ['fr', { accept: NAVIGATION, 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' }, 'Erreur', 'Aller à l’accueil du site'],
    ['de', { accept: NAVIGATION, 'accept-language': 'de-DE, de;q=0.9' }, 'Fehler', 'Zur Startseite'],
    ['ar', { accept: NAVIGATION, 'accept-language': 'ar-EG,ar;q=0.9,en;q=0.5' }, 'خطأ', 'الانتقال إلى الصفحة الرئيسية'],
    ['ja', { accept: NAVIGATION, 'accept-language': 'en-US', cookie: 'wr_locale=ja' }, 'エラー', 'ホームページへ'],
  ])('for a browser (page in %s)', (language, headers, error, home) => {
    it.each(ERRORS)('should show %s as a page for people', async (_what, request, status, code) => {
      const answer = await send(request, headers);

      expectPage(answer, status, language);
      expect(answer.body).toContain(`${error} ${status}`);
      expect(answer.body).toContain(`<a href="/">${home}</a>`);
      expect(answer.body).toContain(escape(explanation(status, code, languages.get(language as Locale))));
    });
  });

  it('should answer each of these errors itself, without asking the origin', async () => {
    const before = server.origin.received.length;

    for (const [, request, status] of ERRORS) expect((await send(request)).status).toBe(status);

    expect(server.origin.received.slice(before)).toEqual([]);
  });

  it.each([
    ['//evil.example/x', '/evil.example/x'],
    ['/\\evil.example', '/evil.example'],
    ['/%5Cevil.example', '/%5Cevil.example'],
  ])('should link "Go back" to this site when the Referer\'s path is %s', async (path, back) => {
    const host = 'waiting-room.test';
    const answer = await send((h) => rawRequest('GET', '/queue/nowhere', h), { accept: NAVIGATION, referer: `http://${host}${path}` });

    expect(answer.status).toBe(404);
    const links = [...answer.body.matchAll(/<a href="([^"]*)">/g)].map((found) => found[1]);
    expect(links).toEqual([back, '/']);
    for (const link of links) expect(new URL(link, `http://${host}/here`).host).toBe(host);
  });

  it('should tell which methods a path takes with 405', async () => {
    const answer = await send((h) => rawRequest('PROPFIND', '/checkout', h));

    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(server.origin.received.filter((one) => one.method === 'PROPFIND')).toEqual([]);
  });

  it('should answer a browser whose replayed POST is sent again with the 409 page, and an API client with JSON', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout?item=42', { form: { quantity: '1' } });
    await admin(server, 'POST', 'release', { count: 1 });
    const replay = { form: { uuid: page.queue.uuid, _token: page.csrfToken } };

    const first = await ada.post(page.queue.uri, replay, { accept: NAVIGATION });
    const reloaded = await ada.post(page.queue.uri, replay, { accept: NAVIGATION });
    const inFrench = await ada.post(page.queue.uri, replay, { accept: NAVIGATION, 'accept-language': 'fr' });
    const byApi = await ada.post(page.queue.uri, replay);

    expect(first.status).toBe(200);
    expect(first.text).toContain('You are through: a <strong>POST</strong> request.');
    expect(first.text).toContain('<th>quantity</th><td>1</td>');
    expect(server.origin.at('/checkout').filter((one) => one.method === 'POST')).toHaveLength(1);
    expectPage({ status: reloaded.status, headers: Object.fromEntries(reloaded.headers), body: reloaded.text }, 409, 'en');
    expect(reloaded.text).toContain('This request was already sent once; it cannot be sent again.');
    expect(inFrench.status).toBe(409);
    expect(inFrench.text).toContain('Cette demande a déjà été envoyée une fois ; elle ne peut pas l’être de nouveau.');
    expect(byApi.status).toBe(409);
    expect(byApi.json).toEqual({ error: { code: 'already_replayed', message: 'This held request was already replayed.' } });
  });
});

describe('the error contract while shutting down', () => {
  it('should answer what still arrives on an open connection with 503 shutting_down', async () => {
    const server = await startServer();
    const socket = await openRaw(server.port);
    const answer = readUntilClosed(socket);
    // The first request is answered (by the origin); the second is still arriving when the server starts closing.
    socket.write('GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\nGET /favicon.ico HTTP/1.1\r\nHost: x\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write('\r\n');
    await closing;

    const { status, body } = await answer;
    const second = parseResponse(body.slice(body.indexOf('HTTP/1.1 ')));

    expect(status).toBe(200);
    expect(body).toContain('origin: GET /favicon.ico');
    expect(server.origin.at('/favicon.ico')).toHaveLength(1);
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('2');
    expect(second.json).toEqual({ error: { code: 'shutting_down', message: expect.any(String) } });
  });
});

const languages = createLanguages({ defaultLocale: 'en', overrides: {} });

describe('the error page texts', () => {
  it('should have a title for every titled status and an explanation for every code, in the catalogue (the same keys in every locale)', () => {
    const keys = (prefix: string) =>
      Object.keys(ENGLISH)
        .filter((key) => key.startsWith(prefix))
        .map((key) => key.slice(prefix.length))
        .sort();
    expect(keys('error.title.')).toEqual([...TITLED_STATUSES.map(String), 'other'].sort());
    expect(keys('error.explain.')).toEqual([...EXPLAINED_CODES, 'client', 'server'].sort());
  });

  it.each(LOCALES)('should write the page in %s, with its direction', (locale) => {
    const page = renderErrorPage(502, 'origin_unreachable', languages.get(locale), '/checkout');
    expect(page).toContain(`<html lang="${locale}" dir="${['ar', 'fa', 'he', 'ur'].includes(locale) ? 'rtl' : 'ltr'}">`);
    expect(page).toContain(escape(languages.get(locale).t('error.explain.origin_unreachable')));
    expect(page).not.toMatch(/error\.(title|explain)/);
  });

  it('should link back only to a page of this same site the visitor came from', () => {
    expect(sameSiteReferrer('https://shop.example/checkout?item=42', 'shop.example')).toBe('/checkout?item=42');
    expect(sameSiteReferrer('http://127.0.0.1:8080/', '127.0.0.1:8080')).toBe('/');
    expect(sameSiteReferrer('https://evil.example/phish', 'shop.example')).toBeUndefined();
    expect(sameSiteReferrer('javascript:alert(1)', 'shop.example')).toBeUndefined();
    expect(sameSiteReferrer('not a url', 'shop.example')).toBeUndefined();
    expect(sameSiteReferrer(undefined, 'shop.example')).toBeUndefined();
    // A path of several leading slashes (or a backslash, read as one) would link to another host.
    expect(sameSiteReferrer('https://shop.example//evil.example/x?y=1', 'shop.example')).toBe('/evil.example/x?y=1');
    expect(sameSiteReferrer('https://shop.example/\\evil.example', 'shop.example')).toBe('/evil.example');
    expect(sameSiteReferrer('https://shop.example/\\/\\evil.example', 'shop.example')).toBe('/evil.example');
    expect(renderErrorPage(409, 'already_replayed', languages.get('en'), '/checkout?a="b"')).toContain(
      '<a href="/checkout?a=&quot;b&quot;">Go back</a> <a href="/">',
    );
    expect(renderErrorPage(409, 'already_replayed', languages.get('en'))).not.toContain('Go back');
  });

  it('should explain a code it does not know by its status alone', () => {
    expect(explanation(400, 'bad_event', languages.get('en'))).toBe('The request could not be served.');
    expect(explanation(503, 'realtime_unavailable', languages.get('fr'))).toBe('Un problème est survenu de notre côté ; réessayez plus tard.');
  });
});

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** A short HTML page for people: status kept, language set, a way back, no JSON. */
function expectPage(answer: Pick<RawAnswer, 'status' | 'headers' | 'body'>, status: number, language: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.body).toMatch(new RegExp(`^<!doctype html>\\n<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">`));
  expect(answer.body).not.toContain('javascript:');
  expect(answer.body).toContain('<a href="/">');
  expect(answer.body).not.toMatch(/"error"|"code"|\{"/);
}
