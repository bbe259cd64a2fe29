import type { Started } from '../../server/start';
import { userIdFor } from '../../server/routes/demo';
import { startServer } from './support/server';
import { Visitor } from './support/visitor';

describe('demo site', () => {
  let server: Started;

  beforeEach(async () => {
    server = await startServer({ ACTIVE_LIMIT: '5' });
  });
  afterEach(() => server.close());

  it('should show a home page with the checkout link, forms and the sign-in state', async () => {
    const ada = new Visitor(server.url);

    const home = await ada.get('/');

    expect(home.status).toBe(200);
    expect(home.headers.get('set-cookie')).toMatch(/^waiting_room_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(home.text).toContain('href="/checkout?item=42"');
    expect(home.text).toContain('action="/checkout?item=42"');
    expect(home.text).toContain('action="/login"');
    expect(home.text).toContain('Anonymous visitor');
  });

  it('should sign in with a numeric user id, then sign out, each time with a new cookie', async () => {
    const ada = new Visitor(server.url);
    const anonymousCookie = (await ada.get('/'), ada.cookie);

    await ada.signIn('<Ada>');
    const signedIn = await ada.get('/');
    const signedInCookie = ada.cookie;
    const logout = await ada.post('/logout', { form: { _token: await ada.csrfToken() } });
    const signedOut = await ada.get('/');

    expect(userIdFor('<Ada>')).toBeGreaterThan(0);
    expect(signedIn.text).toContain(`Signed in as <strong>&lt;Ada&gt;</strong>`);
    expect(signedIn.text).toContain(`#${userIdFor('<Ada>')}`);
    expect(signedInCookie).not.toBe(anonymousCookie);
    expect(logout.status).toBe(303);
    expect(logout.headers.get('location')).toBe('/');
    expect(signedOut.text).toContain('Anonymous visitor');
    expect(ada.cookie).not.toBe(signedInCookie);
  });

  it('should echo the checkout form fields, escaped', async () => {
    const ada = new Visitor(server.url);
    const token = await ada.csrfToken();

    const answer = await ada.post('/checkout?item=<42>', {
      form: { quantity: '2', note: '<script>alert("x")</script>', _token: token },
    });

    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<strong>POST</strong>');
    expect(answer.text).toContain('<th>note</th><td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
    expect(answer.text).toContain('<th>item</th><td>&lt;42&gt;</td>');
    expect(answer.text).not.toContain('<script>');
    expect(answer.text).not.toContain(token);
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
    const ada = new Visitor(server.url);

    const answer = await ada.post('/login', { form: { name, _token: await ada.csrfToken() } });

    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: { code: 'bad_name', message: 'The name may not contain control or text-direction characters.' },
    });
  });

  it.each([
    ['Persian with a zero-width non-joiner', 'می\u200cخواهم'],
    ['an emoji sequence', 'Ada 👩\u200d💻'],
    ['accents, composed and not', 'Zoe\u0301 Éloïse'],
  ])('should accept a sign-in name in %s', async (_what, name) => {
    const ada = new Visitor(server.url);

    await ada.signIn(name);

    expect((await ada.get('/')).text).toContain(`Signed in as <strong>${name.normalize('NFC')}</strong>`);
  });
});
