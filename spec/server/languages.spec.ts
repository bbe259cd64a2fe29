import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parsePageConfig } from '@waiting-room/streams/contract';
import { CATALOGUES, ENGLISH, clientMessages } from '../../locales';
import { ConfigError, loadConfig } from '../../server/process/config';
import { ManualClock } from './support/manual-clock';
import { startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Holds a new visitor at `/checkout` (the room is full) with `headers`. */
async function held(server: StartedWithOrigin, headers: Record<string, string> = {}, pathname = '/checkout') {
  const answer = await new Visitor(server.url).get(pathname, { accept: NAVIGATION, ...headers });
  expect(answer.page).toBeDefined();
  return answer;
}

describe('the visitor in their language', () => {
  let server: StartedWithOrigin;
  let overrides: string;

  beforeAll(async () => {
    overrides = mkdtempSync(path.join(tmpdir(), 'waiting-room-messages-'));
    writeFileSync(path.join(overrides, 'fr.json'), JSON.stringify({ 'page.heading': 'Vous êtes dans la file de la Boutique' }));
    writeFileSync(path.join(overrides, 'en.json'), JSON.stringify({ 'page.heading': 'You are in line for the Shop' }));
    const rooms = [
      { name: 'default', protect: ['/checkout'] },
      { name: 'tokyo', protect: ['/tokyo'], locale: 'ja' },
    ];
    server = await startServer(
      { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ROOMS: JSON.stringify(rooms), DEFAULT_LOCALE: 'de', MESSAGES_DIR: overrides },
      { clock: new ManualClock() },
    );
    await new Visitor(server.url).get('/checkout');
    await new Visitor(server.url).get('/tokyo');
  });
  afterAll(async () => {
    await server.close();
    rmSync(overrides, { recursive: true, force: true });
  });

  it.each([
    ['ar-EG,ar;q=0.9,en;q=0.5', 'ar', 'rtl'],
    ['zh-HK,zh;q=0.8', 'zh-Hant', 'ltr'],
    ['pt-AO', 'pt-PT', 'ltr'],
    ['nn-NO,no;q=0.9', 'nb', 'ltr'],
    ['ur-PK,ur;q=0.9', 'ur', 'rtl'],
    ['sr-Cyrl-BA', 'sr-Latn', 'ltr'],
    ['tl-PH', 'fil', 'ltr'],
    ['he-IL', 'he', 'rtl'],
    ['fa', 'fa', 'rtl'],
    ['ko-KR,ko;q=0.9', 'ko', 'ltr'],
  ])('should write the page for %j in %s, %s, its messages in the config', async (acceptLanguage, locale, dir) => {
    const answer = await held(server, { 'accept-language': acceptLanguage });
    const messages = CATALOGUES[locale as keyof typeof CATALOGUES].messages;
    expect(answer.text).toContain(`<html lang="${locale}" dir="${dir}">`);
    expect(answer.text).toContain(`<title>${messages['page.title']}</title>`);
    expect(answer.text).toContain(`<p>${messages['page.loading']}</p>`);
    expect(answer.text).toContain(messages['html.noscript']);
    expect(answer.text).not.toContain(ENGLISH['page.loading']);
    expect(answer.page?.language).toEqual({
      locale,
      dir,
      messages: clientMessages(messages),
      choices: {
        path: '/queue/language/{locale}',
        languages: expect.arrayContaining([
          { locale: 'ar', name: 'العربية' },
          { locale: 'ja', name: '日本語' },
        ]),
      },
    });
    expect(answer.headers.get('vary')).toContain('Accept-Language');
    const parsed = parsePageConfig(answer.page, server.url);
    expect(parsed.ok && parsed.config.language?.locale).toBe(locale);
  });

  it('should leave the error pages and the page HTML out of the config', async () => {
    const { page } = await held(server, { 'accept-language': 'en' });
    expect(Object.keys(page?.language?.messages ?? {}).filter((key) => /^(error|html)\./.test(key))).toEqual([]);
  });

  it('should speak DEFAULT_LOCALE to a browser that asks for nothing it speaks', async () => {
    const answer = await held(server, { 'accept-language': 'xh, zu;q=0.5' });
    expect(answer.page?.language?.locale).toBe('de');
    expect(answer.text).toContain('<html lang="de" dir="ltr">');
  });

  it("should speak a room's language whatever the browser asks, and the visitor's own choice above both", async () => {
    expect((await held(server, { 'accept-language': 'fr' }, '/tokyo')).page?.language?.locale).toBe('ja');
    const chosen = await held(server, { 'accept-language': 'fr', cookie: 'wr_locale=ar' }, '/tokyo');
    expect(chosen.page?.language?.locale).toBe('ar');
    expect((await held(server, { 'accept-language': 'fr', cookie: 'wr_locale=tlh' })).page?.language?.locale).toBe('fr');
  });

  it("should lay a site's own wording over the catalogue's, in the config and on the page", async () => {
    const english = await held(server, { 'accept-language': 'en' });
    expect(english.page?.language?.messages['page.heading']).toBe('You are in line for the Shop');
    const french = await held(server, { 'accept-language': 'fr' });
    expect(french.page?.language?.messages['page.heading']).toBe('Vous êtes dans la file de la Boutique');
    expect(french.page?.language?.messages['page.position']).toBe(CATALOGUES.fr.messages['page.position']);
  });

  it('should give an API client held with 503 the same language in its JSON', async () => {
    const answer = await new Visitor(server.url).get('/checkout', { accept: 'application/json', 'accept-language': 'ru' });
    expect(answer.status).toBe(503);
    expect(answer.json.language).toMatchObject({ locale: 'ru', dir: 'ltr' });
  });

  it('should answer another language for a switch on the page, cacheable, and 404 for one it does not speak', async () => {
    const answer = await new Visitor(server.url).get('/queue/language/ar');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    expect(answer.json).toEqual({ locale: 'ar', dir: 'rtl', messages: clientMessages(CATALOGUES.ar.messages), choices: expect.any(Object) });
    expect((await new Visitor(server.url).get('/queue/language/PT-br')).json.locale).toBe('pt-BR');
    const unknown = await new Visitor(server.url).get('/queue/language/tlh');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: { code: 'unknown_locale', message: expect.any(String) } });
    const hostile = await new Visitor(server.url).get('/queue/language/%3Cscript%3E', { accept: NAVIGATION, 'accept-language': 'nl' });
    expect(hostile.status).toBe(404);
    expect(hostile.text).toContain('<html lang="nl" dir="ltr">');
  });

  it('should write an error page in the language the visitor chose on the waiting page', async () => {
    const answer = await new Visitor(server.url).get('/queue/nothing', { accept: NAVIGATION, 'accept-language': 'en', cookie: 'wr_locale=he' });
    expect(answer.status).toBe(404);
    expect(answer.text).toContain('<html lang="he" dir="rtl">');
    expect(answer.text).toContain(CATALOGUES.he.messages['error.title.404']);
    expect(answer.headers.get('vary')).toContain('Cookie');
  });
});

describe('language settings', () => {
  const base = { ADMIN_TOKEN: 'test-admin-token-of-24-chars' };
  const withMessages = (files: Record<string, string>) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-messages-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  };

  it('should read DEFAULT_LOCALE in any letter case, and refuse one it does not speak', () => {
    expect(loadConfig({ ...base, DEFAULT_LOCALE: 'zh-hant' }).languages.defaultLocale).toBe('zh-Hant');
    expect(loadConfig(base).languages.defaultLocale).toBe('en');
    expect(() => loadConfig({ ...base, DEFAULT_LOCALE: 'tlh' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, DEFAULT_LOCALE: 'tlh' })).toThrow('DEFAULT_LOCALE must be one of en, es, de');
  });

  it("should read a room's locale and refuse one it does not speak", () => {
    const rooms = (locale: string) => JSON.stringify([{ name: 'a', protect: ['/a'], locale }]);
    expect(loadConfig({ ...base, ROOMS: rooms('AR') }).rooms[0]?.locale).toBe('ar');
    expect(() => loadConfig({ ...base, ROOMS: rooms('xx') })).toThrow('ROOMS[0].locale must be one of');
  });

  it.each([
    ['an unknown key', { 'de.json': '{"page.headline": "x"}' }, 'MESSAGES_DIR: de.json: de: "page.headline" is not a message'],
    ['a changed placeholder', { 'de.json': '{"page.tabTitle": "Nr. {place}"}' }, 'de: "page.tabTitle" has the placeholders {place}; English has {position}'],
    ['a locale it does not speak', { 'tlh.json': '{}' }, 'MESSAGES_DIR: tlh.json (named after its locale) must be one of'],
    ['a file that is not JSON', { 'fr.json': '{"page.heading": ' }, 'MESSAGES_DIR: fr.json must be JSON'],
  ])("should refuse to start on a site's wording with %s", (_what, files, message) => {
    expect(() => loadConfig({ ...base, MESSAGES_DIR: withMessages(files) })).toThrow(message);
  });

  it('should refuse a MESSAGES_DIR it cannot read', () => {
    expect(() => loadConfig({ ...base, MESSAGES_DIR: path.join(tmpdir(), 'no-such-folder-of-messages') })).toThrow('MESSAGES_DIR cannot be read');
  });
});
