import { startDemoOrigin, type StartedDemoOrigin } from '../../demo/origin';

/** What a browser would send: a form, JSON, or a raw body with its type. */
type Body = { form: Record<string, string> } | { json: unknown } | { raw: string; type: string };

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

/** One browser: it keeps its cookies and sends them back, as a browser would on one site. */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  get cookie(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, undefined, headers);
  }

  post(path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', path, body, headers);
  }

  async send(method: string, path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    const sent: Record<string, string> = { ...(this.cookies.size > 0 ? { cookie: this.cookie } : {}), ...headers };
    let payload: string | undefined;
    if (body && 'form' in body) {
      payload = new URLSearchParams(body.form).toString();
      sent['content-type'] = 'application/x-www-form-urlencoded';
    } else if (body && 'json' in body) {
      payload = JSON.stringify(body.json);
      sent['content-type'] = 'application/json';
    } else if (body) {
      payload = body.raw;
      sent['content-type'] = body.type;
    }
    const response = await fetch(this.base + path, { method, headers: sent, body: payload, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair = ''] = setCookie.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** The session's CSRF token, read from the home page's forms. */
  async csrfToken(): Promise<string> {
    const token = tokenIn((await this.get('/')).text);
    if (!token) throw new Error('No CSRF token on the home page');
    return token;
  }

  async signIn(name: string): Promise<Answer> {
    return this.post('/login', { form: { name, _token: await this.csrfToken() } });
  }
}

function tokenIn(page: string): string | undefined {
  return /name="_token" value="([^"]+)"/.exec(page)?.[1];
}

const EXPIRED = 'This form has expired: go back and try again.';

describe('demo origin: a small shop on its own', () => {
  let origin: StartedDemoOrigin;

  beforeEach(async () => {
    origin = await startDemoOrigin({ port: 0 });
  });
  afterEach(() => origin.close());

  it('should listen on a free port of 127.0.0.1 and give its URL', () => {
    expect(origin.port).toBeGreaterThan(0);
    expect(origin.url).toBe(`http://127.0.0.1:${origin.port}`);
  });

  it('should show a home page with the sign-in form, its token, and the ways to the checkout', async () => {
    const ada = new Browser(origin.url);

    const home = await ada.get('/');

    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(home.headers.get('cache-control')).toBe('no-store');
    expect(home.headers.get('set-cookie')).toMatch(/^shop_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(tokenIn(home.text)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(home.text).toContain('<form method="post" action="/login">');
    expect(home.text).toContain('name="name"');
    expect(home.text).toContain('href="/checkout?item=42"');
    expect(home.text).toContain('<form method="post" action="/checkout?item=42">');
    expect(home.text).toContain('name="quantity" type="number"');
    expect(home.text).toMatch(/<textarea[^>]* name="note"/);
    expect(home.text).toContain('Not signed in');
    expect(home.text).not.toMatch(/waiting/i);
  });

  it('should keep the same session, and token, while the cookie comes back', async () => {
    const ada = new Browser(origin.url);

    const first = await ada.get('/');
    const second = await ada.get('/');

    expect(second.headers.get('set-cookie')).toBeNull();
    expect(tokenIn(second.text)).toBe(tokenIn(first.text));
  });

  it('should sign in under a new session, then show the name escaped', async () => {
    const ada = new Browser(origin.url);
    const anonymousToken = await ada.csrfToken();
    const anonymousCookie = ada.cookie;

    const login = await ada.signIn('<Ada>');
    const home = await ada.get('/');

    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    expect(login.headers.get('set-cookie')).toMatch(/^shop_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(ada.cookie).not.toBe(anonymousCookie);
    expect(home.text).toContain('Signed in as <strong>&lt;Ada&gt;</strong>');
    expect(home.text).toContain('action="/logout"');
    expect(home.text).not.toContain('<Ada>');
    // A new session: the token of the one before sign-in opens nothing any more.
    expect(tokenIn(home.text)).not.toBe(anonymousToken);
    expect((await ada.post('/checkout', { form: { _token: anonymousToken } })).status).toBe(419);
  });

  it('should sign in with the name trimmed and composed (NFC), up to 40 characters', async () => {
    const ada = new Browser(origin.url);

    await ada.signIn('  Zoe\u0301  ');
    const zoe = await ada.get('/');
    const longest = new Browser(origin.url);
    const answer = await longest.signIn('a'.repeat(40));

    expect(zoe.text).toContain('Signed in as <strong>Zo\u00e9</strong>');
    expect(answer.status).toBe(303);
    expect((await longest.get('/')).text).toContain(`Signed in as <strong>${'a'.repeat(40)}</strong>`);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['41 characters long', 'a'.repeat(41)],
  ])('should refuse a sign-in name that is %s with 400, still signed out', async (_what, name) => {
    const ada = new Browser(origin.url);

    const answer = await ada.signIn(name);

    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.text).toContain('The name must be 1 to 40 characters long.');
    expect((await ada.get('/')).text).toContain('Not signed in');
  });

  it.each([
    ['a line break', 'Ada\nAdmin'],
    ['a tab', 'Ada\tLovelace'],
    ['a NUL', 'Ada\u0000'],
    ['an escape sequence', 'Ada\u001b[31m'],
    ['a C1 control', 'Ada\u0085'],
    ['a right-to-left override', 'Ada\u202egnp.exe'],
    ['a directional isolate', '\u2067Ada'],
  ])('should refuse a sign-in name with %s, which could forge log lines or disguise the name', async (_what, name) => {
    const ada = new Browser(origin.url);

    const answer = await ada.signIn(name);

    expect(answer.status).toBe(400);
    expect(answer.text).toContain('The name may not contain control or text-direction characters.');
    expect((await ada.get('/')).text).toContain('Not signed in');
  });

  it.each([
    ['Persian with a zero-width non-joiner', 'می\u200cخواهم'],
    ['an emoji sequence', 'Ada 👩\u200d💻'],
  ])('should accept a sign-in name in %s', async (_what, name) => {
    const ada = new Browser(origin.url);

    expect((await ada.signIn(name)).status).toBe(303);
    expect((await ada.get('/')).text).toContain(`Signed in as <strong>${name}</strong>`);
  });

  it('should refuse to sign in without the token, with a wrong one, or without a session', async () => {
    const ada = new Browser(origin.url);
    const token = await ada.csrfToken();
    const stranger = new Browser(origin.url);

    const missing = await ada.post('/login', { form: { name: 'Ada' } });
    const otherToken = token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    const wrong = await ada.post('/login', { form: { name: 'Ada', _token: otherToken } });
    const noSession = await stranger.post('/login', { form: { name: 'Ada', _token: token } });

    expect([missing.status, wrong.status, noSession.status]).toEqual([419, 419, 419]);
    expect(missing.text).toContain(EXPIRED);
    expect((await ada.get('/')).text).toContain('Not signed in');
  });

  it('should echo a checkout POST exactly: method, query, content type and fields, escaped', async () => {
    const ada = new Browser(origin.url);
    const token = await ada.csrfToken();

    const answer = await ada.post('/checkout?item=<42>&item=43', {
      form: { quantity: '2', note: '<script>alert("x")</script>', _token: token },
    });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.text).toContain('<h1>Checkout</h1>');
    expect(answer.text).toContain('<strong>POST</strong>');
    expect(answer.text).toContain('<tr><th>item</th><td>&lt;42&gt;</td></tr><tr><th>item</th><td>43</td></tr>');
    expect(answer.text).toContain('<code>application/x-www-form-urlencoded</code>');
    expect(answer.text).toContain('<tr><th>quantity</th><td>2</td></tr>');
    expect(answer.text).toContain('<tr><th>note</th><td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td></tr>');
    expect(answer.text).not.toContain('<script>');
    expect(answer.text).not.toContain(token);
  });

  it('should show a GET checkout with its query and no fields, and answer HEAD alike without a body', async () => {
    const ada = new Browser(origin.url);

    const get = await ada.get('/checkout?item=42');
    const head = await ada.send('HEAD', '/checkout?item=42');

    expect(get.status).toBe(200);
    expect(get.text).toContain('<strong>GET</strong>');
    expect(get.text).toContain('<tr><th>item</th><td>42</td></tr>');
    expect(get.text).not.toContain('Fields received');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.text).toBe('');
  });

  it.each([
    ['without a token', (): Record<string, string> => ({ quantity: '1' })],
    ['with a wrong token', (): Record<string, string> => ({ quantity: '1', _token: 'x'.repeat(32) })],
    ['with an empty token', (): Record<string, string> => ({ quantity: '1', _token: '' })],
  ])('should refuse a checkout POST %s with 419 and a readable page', async (_what, form) => {
    const ada = new Browser(origin.url);
    await ada.get('/');

    const answer = await ada.post('/checkout?item=42', { form: form() });

    expect(answer.status).toBe(419);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.text).toContain('Page expired');
    expect(answer.text).toContain(EXPIRED);
    expect(answer.text).not.toContain('Checkout');
  });

  it("should refuse another visitor's token, and a forged unsigned cookie", async () => {
    const ada = new Browser(origin.url);
    const bob = new Browser(origin.url);
    await ada.get('/');
    const bobsToken = await bob.csrfToken();
    const forger = new Browser(origin.url);
    const forged = ['0d8a5c2e-0000-4000-8000-000000000000', 'f'.repeat(32), 'Mallory'];
    forger.cookies.set('shop_session', Buffer.from(JSON.stringify(forged)).toString('base64url'));

    const crossed = await ada.post('/checkout', { form: { _token: bobsToken } });
    const forgedPost = await forger.post('/checkout', { form: { _token: 'f'.repeat(32) } });
    const forgedHome = await forger.get('/');

    expect(crossed.status).toBe(419);
    expect(forgedPost.status).toBe(419);
    expect(forgedHome.text).not.toContain('Mallory');
    expect(forgedHome.headers.get('set-cookie')).toMatch(/^shop_session=/);
  });

  it('should take the token from the X-CSRF-Token header for PUT, PATCH and DELETE, and echo the method', async () => {
    const ada = new Browser(origin.url);
    const token = await ada.csrfToken();

    const csrf = { 'x-csrf-token': token };
    const put = await ada.send('PUT', '/checkout?item=42', { json: { quantity: 3, gift: true } }, csrf);
    const patch = await ada.send('PATCH', '/checkout', { form: { note: 'later' } }, csrf);
    const del = await ada.send('DELETE', '/checkout?item=42', undefined, csrf);
    const wrong = await ada.send('PUT', '/checkout', { json: { quantity: 3 } }, { 'x-csrf-token': 'nope' });

    expect(put.status).toBe(200);
    expect(put.text).toContain('<strong>PUT</strong>');
    expect(put.text).toContain('<code>application/json</code>');
    expect(put.text).toContain('<tr><th>quantity</th><td>3</td></tr><tr><th>gift</th><td>true</td></tr>');
    expect(patch.status).toBe(200);
    expect(patch.text).toContain('<strong>PATCH</strong>');
    expect(patch.text).toContain('<tr><th>note</th><td>later</td></tr>');
    expect(del.status).toBe(200);
    expect(del.text).toContain('<strong>DELETE</strong>');
    expect(wrong.status).toBe(419);
  });

  it('should give a fetch-based client its token and session, then answer its JSON order', async () => {
    const app = new Browser(origin.url);

    const session = await app.get('/api/session');
    const order = await app.post('/checkout/api?item=42&item=43', { json: { quantity: 2, note: '<b>now</b>' } }, { 'x-csrf-token': session.json.csrfToken });

    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(session.headers.get('set-cookie')).toMatch(/^shop_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(session.json).toEqual({ csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), name: null });
    expect(order.status).toBe(200);
    expect(order.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(order.json).toEqual({
      ok: true,
      order: expect.any(Number),
      method: 'POST',
      query: { item: ['42', '43'] },
      received: { quantity: 2, note: '<b>now</b>' },
    });
  });

  it('should number the orders the API took, and say how many it took', async () => {
    const app = new Browser(origin.url);
    const { csrfToken } = (await app.get('/api/session')).json;
    const before = (await app.get('/api/orders')).json.received as number;
    const first = await app.post('/checkout/api', { json: { quantity: 1 } }, { 'x-csrf-token': csrfToken });
    const refused = await app.post('/checkout/api', { json: { quantity: 1 } }, { 'x-csrf-token': 'wrong' });
    const second = await app.post('/checkout/api', { json: { quantity: 3 } }, { 'x-csrf-token': csrfToken });

    expect([first.json.order, second.json.order]).toEqual([before + 1, before + 2]);
    expect(refused.status).toBe(419);
    expect((await app.get('/api/orders')).json).toEqual({ received: before + 2 });
  });

  it('should serve a single-page checkout whose script places the order with fetch, knowing of no waiting room', async () => {
    const app = new Browser(origin.url);
    const page = await app.get('/buy');
    const script = await app.get('/buy.js');

    expect(page.status).toBe(200);
    expect(page.text).toContain('<form id="buy">');
    expect(page.text).toContain('<script type="module" src="/buy.js"></script>');
    expect(page.text).toMatch(/<meta name="csrf-token" content="[A-Za-z0-9_-]{32}">/);
    expect(page.text).not.toContain('waiting-room-script');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain("(await send)('/checkout/api?item=42'");
  });

  it("should name the waiting room's script it is told of, and let the page load it", async () => {
    const behindGateway = await startDemoOrigin({ waitingRoomScript: '/assets/waiting-room.js' });
    const elsewhere = await startDemoOrigin({ waitingRoomScript: 'https://line.example:8443/assets/waiting-room.js?v="1"' });
    try {
      const same = await new Browser(behindGateway.url).get('/buy');
      const other = await new Browser(elsewhere.url).get('/buy');

      expect(same.text).toContain('<meta name="waiting-room-script" content="/assets/waiting-room.js">');
      expect(same.headers.get('content-security-policy')).toMatch(/connect-src 'self';.*; script-src 'self'$/);
      expect(other.text).toContain('<meta name="waiting-room-script" content="https://line.example:8443/assets/waiting-room.js?v=&quot;1&quot;">');
      expect(other.headers.get('content-security-policy')).toContain("connect-src 'self' https://line.example:8443 wss://line.example:8443;");
      expect(other.headers.get('content-security-policy')).toMatch(/; script-src 'self' https:\/\/line\.example:8443$/);
      // The other pages keep the policy that runs no script.
      expect((await new Browser(behindGateway.url).get('/')).headers.get('content-security-policy')).not.toContain('script-src');
    } finally {
      await Promise.all([behindGateway.close(), elsewhere.close()]);
    }
  });

  it("should give the API the same session as the pages: the signed-in name and the forms' token", async () => {
    const ada = new Browser(origin.url);
    await ada.signIn('Ada');
    const pageToken = await ada.csrfToken();

    const session = await ada.get('/api/session');

    expect(session.json).toEqual({ csrfToken: pageToken, name: 'Ada' });
    expect(session.headers.get('set-cookie')).toBeNull();
  });

  it('should refuse a JSON order without the header token (419) or not in JSON (415), in JSON', async () => {
    const app = new Browser(origin.url);
    const { csrfToken } = (await app.get('/api/session')).json;

    const bodyToken = await app.post('/checkout/api', { json: { _token: csrfToken } }, { accept: 'text/html' });
    const form = await app.post('/checkout/api', { form: { quantity: '1' } }, { 'x-csrf-token': csrfToken });

    expect(bodyToken.status).toBe(419);
    expect(bodyToken.json).toEqual({
      error: { code: 'csrf_mismatch', message: expect.stringContaining('X-CSRF-Token') },
    });
    expect(form.status).toBe(415);
    expect(form.json).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
  });

  it('should sign out to a fresh session, refusing the token of the one before', async () => {
    const ada = new Browser(origin.url);
    await ada.signIn('Ada');
    const signedInToken = await ada.csrfToken();
    const signedInCookie = ada.cookie;

    const logout = await ada.post('/logout', { form: { _token: signedInToken } });
    const home = await ada.get('/');

    expect(logout.status).toBe(303);
    expect(logout.headers.get('location')).toBe('/');
    expect(ada.cookie).not.toBe(signedInCookie);
    expect(home.text).toContain('Not signed in');
    expect(home.text).not.toContain('Signed in as');
    expect(tokenIn(home.text)).not.toBe(signedInToken);
    expect((await ada.post('/checkout', { form: { _token: signedInToken } })).status).toBe(419);
  });

  it('should not sign out without the token', async () => {
    const ada = new Browser(origin.url);
    await ada.signIn('Ada');

    const logout = await ada.post('/logout', { form: {} });

    expect(logout.status).toBe(419);
    expect((await ada.get('/')).text).toContain('Signed in as <strong>Ada</strong>');
  });

  it('should answer an unknown address with a page for browsers and JSON for programs', async () => {
    const visitor = new Browser(origin.url);

    const page = await visitor.get('/nowhere?x=<y>', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    const api = await visitor.get('/nowhere?x=<y>');

    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('Page not found');
    expect(page.text).toContain('href="/"');
    expect(api.status).toBe(404);
    expect(api.json).toEqual({ error: { code: 'not_found', message: 'Nothing at GET /nowhere.' } });
  });

  it('should answer the favicon with 204, cacheable', async () => {
    const answer = await new Browser(origin.url).get('/favicon.ico');

    expect(answer.status).toBe(204);
    expect(answer.headers.get('cache-control')).toBe('max-age=86400');
  });

  it('should accept the cookies of another shop given the same secret, and only those', async () => {
    const twin = await startDemoOrigin({ secret: 'one secret for every instance' });
    const other = await startDemoOrigin({ secret: 'another secret' });
    const first = await startDemoOrigin({ secret: 'one secret for every instance' });
    try {
      const ada = new Browser(first.url);
      await ada.signIn('Ada');
      const token = await ada.csrfToken();
      const cookie = ada.cookie;

      const onTwin = await new Browser(twin.url).get('/api/session', { cookie });
      const onOther = await new Browser(other.url).get('/api/session', { cookie });

      expect(onTwin.json).toEqual({ csrfToken: token, name: 'Ada' });
      expect(onOther.json.name).toBeNull();
      expect(onOther.json.csrfToken).not.toBe(token);
    } finally {
      await Promise.all([twin.close(), other.close(), first.close()]);
    }
  });
});
