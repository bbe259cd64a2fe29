import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLanguages } from '../../server/http/languages';
import { loadWaitingPage, PageTemplateError, type BuiltWaitingPage } from '../../server/http/page';
import { loadRoomPage, loadRoomPages, type RoomPageNeeds } from '../../server/http/page-template';
import { styleHash } from '../../server/http/security-headers';
import { loadConfig } from '../../server/process/config';
import { ensureWaitingPageBuilt, WAITING_PAGE } from '../support/waiting-page-built';
import { startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const EXAMPLE = path.resolve(__dirname, '../../docs/examples/waiting-page.html');
const EXAMPLE_ROOMS = path.resolve(__dirname, '../../docs/examples/waiting-page.rooms.json');
const WORDS = { en: { headline: 'Hello & welcome' }, fr: { headline: 'Bonjour' } };
const NEEDS: RoomPageNeeds = { room: 'shop', botCheck: false, events: false, draw: false, fallback: 'en' };

/** A template with `body` in its body, in a file of its own. */
function template(body: string, head = ''): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-template-')), 'page.html');
  writeFileSync(
    file,
    `<!doctype html>\n<html lang="en">\n<head>${head.includes('<title>') ? '' : '<title>Shop</title>'}${head}</head>\n<body>\n${body}\n</body>\n</html>\n`,
  );
  return file;
}

const BLOCKS = '{{block:loading}} {{block:position}} {{block:estimate}}';

describe("a room's own waiting page", () => {
  const languages = createLanguages(loadConfig({}).languages);
  let built: BuiltWaitingPage;
  beforeAll(async () => {
    await ensureWaitingPageBuilt();
    built = loadWaitingPage(WAITING_PAGE, languages);
  }, 120_000);

  const load = (file: string, needs: Partial<RoomPageNeeds> = {}, words: Record<string, Record<string, string>> = WORDS) =>
    loadRoomPage(built, { template: file, words }, { ...NEEDS, ...needs });

  it("should place each block in its element, the loading block already in, the operator's words escaped in the page's language", () => {
    const page = load(template(`<h2>{{word:headline}}</h2>${BLOCKS}`));
    const english = page.render({ queue: 1 }, languages.get('en'));
    expect(english).toContain('<h2><span data-waiting-room-word="headline">Hello &amp; welcome</span></h2>');
    expect(english).toMatch(/<div data-waiting-room-block="loading">\s*<section class="wr-block wr-loading" role="status">/);
    expect(english).toContain('<div data-waiting-room-block="position"></div>');
    expect(english).toContain('<div data-waiting-room-block="estimate"></div>');
    expect(english).toContain('<script id="waiting-room-config" type="application/json">{"queue":1}</script>');
    expect(english).toMatch(/<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>\s*<\/body>/);
    const french = page.render({}, languages.get('fr'));
    expect(french).toContain('<html lang="fr" dir="ltr">');
    expect(french).toContain('<h2><span data-waiting-room-word="headline">Bonjour</span></h2>');
    expect(french).toContain('Recherche de votre place dans la file');
    // No French word: the room's language (English here).
    expect(page.render({}, languages.get('de'))).toContain('<h2><span data-waiting-room-word="headline">Hello &amp; welcome</span></h2>');
  });

  it('should write a word in a tag, a title or a style as its text alone, and give the page every language of its words', () => {
    const page = load(template(`<img alt="{{word:headline}}" src="logo.png">${BLOCKS}`, '<title>{{word:headline}} | Shop</title>'));
    const html = page.render({}, languages.get('fr'));
    expect(html).toContain('<img alt="Bonjour" src="logo.png">');
    expect(html).toContain('<title>Bonjour | Shop</title>');
    const words = /<script id="waiting-room-words" type="application\/json">(.*?)<\/script>/.exec(html)?.[1] as string;
    expect(JSON.parse(words)).toEqual({ words: WORDS, fallback: 'en' });
  });

  it('should never read a word as a placeholder, and fall back to the room language', () => {
    const page = load(template(`<p>{{word:headline}}</p>${BLOCKS}`), { fallback: 'fr' }, { fr: { headline: '{{block:verify}}' } });
    const html = page.render({}, languages.get('en'));
    expect(html).toContain('<p><span data-waiting-room-word="headline">{{block:verify}}</span></p>');
    expect(html).not.toContain('data-waiting-room-block="verify"');
  });

  it("should name the operator's inline styles in the page's policy, besides the page's own", () => {
    const page = load(template(BLOCKS, '<style media="screen">body { color: purple; }</style>'));
    expect(page.styles).toEqual(expect.arrayContaining(['body { color: purple; }', ...(built.styles ?? [])]));
    expect(page.scripts).toEqual(built.scripts);
  });

  describe('refuses at start, naming the room and what is wrong', () => {
    const refusals: ReadonlyArray<readonly [string, () => string, Partial<RoomPageNeeds>, RegExp]> = [
      ['a missing template', () => path.join(tmpdir(), 'no-such-dir', 'page.html'), {}, /Room "shop": its page template .*page\.html cannot be read/],
      ['a template without the loading block', () => template('{{block:position}} {{block:estimate}}'), {}, /lacks the block "loading"/],
      ['a template without the position', () => template('{{block:loading}} {{block:estimate}}'), {}, /lacks the block "position"/],
      ['a template without the estimate', () => template('{{block:loading}} {{block:position}}'), {}, /lacks the block "estimate"/],
      ['an unknown block', () => template(`${BLOCKS} {{block:cart}}`), {}, /names the block "cart", unknown: the blocks are loading, position/],
      ['an unknown word', () => template(`${BLOCKS} {{word:slogan}}`), {}, /names the word "slogan", which its words in en do not give/],
      ['a placeholder of no kind', () => template(`${BLOCKS} {{position}}`), {}, /holds \{\{position\}\}, which is no \{\{block:name\}\}/],
      ['a block placed twice', () => template(`${BLOCKS} {{block:position}}`), {}, /places the block "position" twice/],
      ['no bot-check block in a room with a bot check', () => template(BLOCKS), { botCheck: true }, /lacks the block "bot-check" .*the room has a bot check/],
      ['no countdown in a room with events', () => template(BLOCKS), { events: true }, /lacks the block "countdown" .*the room has scheduled events/],
      [
        'no verify block in a room whose event draws',
        () => template(`${BLOCKS} {{block:countdown}}`),
        { events: true, draw: true },
        /lacks the block "verify"/,
      ],
      ['a script', () => template(`${BLOCKS}<script>alert(1)</script>`), {}, /holds a <script> element/],
      ['an event handler attribute', () => template(`${BLOCKS}<img src="x.png" onerror="alert(1)">`), {}, /holds an event handler attribute/],
      ['a style attribute', () => template(`${BLOCKS}<p style="color: red">Hi</p>`), {}, /holds a style attribute/],
      ['a template that is no page', () => writeBare(), {}, /must hold exactly one <head>/],
    ];
    it.each(refusals)('%s', (_what, file, needs, message) => {
      const attempt = () => load(file(), needs);
      expect(attempt).toThrow(PageTemplateError);
      expect(attempt).toThrow(message);
    });
  });

  describe("reads the template as a browser parses it, once each language's words are placed, and refuses what is not allowed", () => {
    const words = (en: Record<string, string>, fr: Record<string, string> = {}) => ({ en: { ...WORDS.en, ...en }, fr: { ...WORDS.fr, ...fr } });
    const refusals: ReadonlyArray<readonly [string, string, Record<string, Record<string, string>>, RegExp]> = [
      [
        'a word that makes a <script> tag',
        `${BLOCKS}<{{word:s}}>window.x=1</script>`,
        words({ s: 'script' }),
        /holds a <script> element.*words in en are placed/,
      ],
      [
        'a word that makes a tag in one language only',
        `${BLOCKS}<{{word:s}}>window.x=1</{{word:s}}>`,
        words({ s: 'b' }, { s: 'script' }),
        /holds a <script> element.*words in fr are placed/,
      ],
      ['a handler with no space before it', `${BLOCKS}<img/src="x"/onerror=alert(1)>`, WORDS, /holds an event handler attribute/],
      ['a style attribute with no space before it', `${BLOCKS}<p/style=color:red>Hi</p>`, WORDS, /holds a style attribute/],
      ['a word that names a handler attribute', `${BLOCKS}<p {{word:a}}=alert(1)>Hi</p>`, words({ a: 'onclick' }), /holds an event handler attribute/],
      ['a javascript: link', `${BLOCKS}<a href="java\tscript:alert(1)">x</a>`, WORDS, /holds a javascript: address in the href of <a>/],
      ['a word that is a javascript: link', `${BLOCKS}<a href="{{word:u}}">x</a>`, words({ u: 'JavaScript:alert(1)' }), /holds a javascript: address/],
      ['a data: link', `${BLOCKS}<a href="data:text/html,<script>alert(1)</script>">x</a>`, WORDS, /holds a data: address/],
      ['a blob: image', `${BLOCKS}<img src="blob:https://shop.example/x" alt="">`, WORDS, /holds a blob: address/],
      ['an iframe', `${BLOCKS}<iframe src="/x"></iframe>`, WORDS, /holds a <iframe> element/],
      ['an object', `${BLOCKS}<object data="/x"></object>`, WORDS, /holds a <object> element/],
      ['an embed', `${BLOCKS}<embed src="/x">`, WORDS, /holds a <embed> element/],
      ['a form', `${BLOCKS}<form action="https://evil.example"><button>Go</button></form>`, WORDS, /holds a <form> element/],
      [
        'a template element, whose content the parser keeps apart',
        `${BLOCKS}<template><script>alert(1)</script></template>`,
        WORDS,
        /holds a <template> element/,
      ],
      ['a script in inline SVG', `${BLOCKS}<svg><script>alert(1)</script></svg>`, WORDS, /holds a <script> element/],
      ['an SVG link elsewhere', `${BLOCKS}<svg><a href="javascript:alert(1)"><text>x</text></a></svg>`, WORDS, /holds a <a> element/],
      ['an SVG animation that rewrites a link', `${BLOCKS}<svg><set attributeName="href" to="javascript:alert(1)"/></svg>`, WORDS, /holds a <set> element/],
      ['an SVG use of another document', `${BLOCKS}<svg><use href="data:image/svg+xml,x#a"/></svg>`, WORDS, /inline SVG may name only its own parts/],
      ['an unknown attribute', `${BLOCKS}<p formaction="/x">Hi</p>`, WORDS, /holds a formaction attribute on <p>/],
      ['a <body> inside a comment', `${BLOCKS}`, WORDS, /no tag of the page/],
    ];
    const headOf: Record<string, string> = {
      'a <base>': '<base href="https://evil.example/">',
      'a <meta http-equiv>': '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    };
    it.each(refusals)('%s', (what, body, given, message) => {
      const file =
        what === 'a <body> inside a comment'
          ? (() => {
              const bare = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-template-')), 'page.html');
              writeFileSync(bare, `<!doctype html><html><head><title>x</title></head><!-- <body> -->${body}\n</body></html>`);
              return bare;
            })()
          : template(body);
      const attempt = () => load(file, {}, given);
      expect(attempt).toThrow(PageTemplateError);
      expect(attempt).toThrow(message);
    });
    it.each(Object.entries(headOf))('%s in the head', (_what, head) => {
      const attempt = () => load(template(BLOCKS, head));
      expect(attempt).toThrow(/holds a (<base> element|http-equiv attribute on <meta>)/);
    });
    it('should still take what a page of a shop holds: links, images, a picture, a table, details, inline SVG with a gradient', () => {
      const body =
        `<nav aria-label="Shop"><a href="/" rel="home">Home</a> <a href="https://shop.example/help" target="_blank" rel="noopener">Help</a> <a href="mailto:help@shop.example">Mail</a></nav>` +
        `<picture><source srcset="/logo.avif 1x, /logo@2x.avif 2x" type="image/avif"><img src="data:image/png;base64,iVBORw0KGgo=" alt="" width="10" height="10" loading="lazy"></picture>` +
        `<table><caption>Hours</caption><tr><th scope="row">Mon</th><td colspan="2">9–5</td></tr></table><details open><summary>Why wait?</summary><p>Fair.</p></details>` +
        `<svg viewBox="0 0 10 10" aria-hidden="true" focusable="false"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><circle cx="5" cy="5" r="4" fill="url(#g)"/><use href="#g"/></svg>` +
        BLOCKS;
      expect(() => load(template(body, '<meta name="description" content="Shop"><link rel="icon" href="/favicon.ico">'))).not.toThrow();
    });
  });

  it('should accept the example template with the blocks a room with a bot check and drawn events needs', () => {
    expect(() => load(EXAMPLE, { events: true, draw: true }, exampleWords())).not.toThrow();
    expect(() => load(EXAMPLE, { botCheck: true }, exampleWords())).toThrow(/lacks the block "bot-check"/);
  });

  it("should ask of each room's template what the room needs: a bot check, its events", () => {
    const rooms = (room: Record<string, unknown>) =>
      JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: template(BLOCKS), words: WORDS }, ...room }]);
    expect(() => loadRoomPages(built, loadConfig({ ROOMS: rooms({ botChallenge: 'pow' }) }))).toThrow(/Room "shop": .*lacks the block "bot-check"/);
    const event = { name: 'Drop', eventStartTime: '2030-01-01T10:00:00Z', eventEndTime: '2030-01-01T11:00:00Z' };
    expect(() => loadRoomPages(built, loadConfig({ ROOMS: rooms({ events: [event] }) }))).toThrow(/lacks the block "countdown"/);
    expect(loadRoomPages(built, loadConfig({ ROOMS: rooms({}) })).has('shop')).toBe(true);
  });

  it('should stop the server from starting, before it listens, with a template it refuses', async () => {
    const rooms = JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: template('{{block:loading}}'), words: WORDS } }]);
    const starting = startServer({ ROOMS: rooms }, {}, { pageHtmlPath: WAITING_PAGE });
    await expect(starting).rejects.toThrow(PageTemplateError);
    await expect(starting).rejects.toThrow(/Room "shop": .* lacks the block "position"/);
  });
});

/** The example's words, as its ROOMS file gives them. */
function exampleWords(): Record<string, Record<string, string>> {
  return (JSON.parse(readFileSync(EXAMPLE_ROOMS, 'utf8')) as [{ page: { words: Record<string, Record<string, string>> } }])[0].page.words;
}

function writeBare(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'waiting-room-template-')), 'page.html');
  writeFileSync(file, `<html><body>${BLOCKS}</body></html>`);
  return file;
}

describe('a server with a room of its own page and a room of the default page', () => {
  let server: StartedWithOrigin;
  beforeAll(async () => {
    await ensureWaitingPageBuilt();
    const rooms = JSON.parse(readFileSync(EXAMPLE_ROOMS, 'utf8')) as [{ page: { template: string } }];
    rooms[0].page.template = EXAMPLE;
    server = await startServer(
      { ROOMS: JSON.stringify([...rooms, { name: 'tickets', protect: ['/tickets'] }]), ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' },
      {},
      { pageHtmlPath: WAITING_PAGE },
    );
    for (const filled of ['/checkout', '/tickets']) await fetch(server.url + filled);
  }, 120_000);
  afterAll(() => server?.close());

  const held = (at: string, language: string) => new Visitor(server.url).get(at, { accept: 'text/html', 'accept-language': language });

  it("should answer the room's held visitor with its page in their language, its styles allowed by hash", async () => {
    const response = await held('/checkout/cart', 'fr');
    const html = response.text;
    expect(response.status).toBe(200);
    expect(html).toContain('Merci de patienter avec nous');
    expect(html).toContain('data-waiting-room-block="position"');
    const css = /<style>([\s\S]*?)<\/style>/.exec(readFileSync(EXAMPLE, 'utf8'))?.[1] as string;
    expect(response.headers.get('content-security-policy')).toContain(styleHash(css));
  });

  it("should answer another room's held visitor with the default page and its policy", async () => {
    const response = await held('/tickets/1', 'fr');
    const html = response.text;
    expect(html).toContain('<main id="waiting-room" class="wr">');
    expect(html).not.toContain('data-waiting-room-block');
    const css = /<style>([\s\S]*?)<\/style>/.exec(readFileSync(EXAMPLE, 'utf8'))?.[1] as string;
    expect(response.headers.get('content-security-policy')).not.toContain(styleHash(css));
  });
});
