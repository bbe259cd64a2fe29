import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { violations } from '../support/axe';
import { launchBrowser } from '../support/browser';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

/**
 * The operator speaks to those waiting, in Chromium against the real server: a page that waits
 * shows the message within a second of `PUT /admin/message`, in its live region, once; a page
 * opened later shows it at once; `DELETE` clears it; each visitor reads it in their language,
 * else the room's; and in a room's own page, the message shows where its template puts it.
 */

/** The documented own page, with its block for the message. */
const EXAMPLE = path.resolve(__dirname, '../../docs/examples/waiting-page.html');
const [SHOP] = JSON.parse(readFileSync(path.resolve(__dirname, '../../docs/examples/waiting-page.rooms.json'), 'utf8')) as [
  { name: string; page: { template: string; words: Record<string, Record<string, string>> } },
];
const ROOMS = JSON.stringify([
  { name: 'checkout', protect: ['/checkout'], activeLimit: 1 },
  { ...SHOP, protect: ['/tickets'], page: { ...SHOP.page, template: EXAMPLE }, activeLimit: 1 },
]);

/**
 * Records each text the message's live region takes, in order, from the first document on: what a
 * screen reader is given to announce.
 */
const RECORD = `(() => {
  const said = [];
  Object.defineProperty(window, '__said', { value: said });
  let last = '';
  new MutationObserver(() => {
    const text = document.querySelector('.wr-message')?.textContent ?? '';
    if (text !== last) said.push((last = text));
  }).observe(document, { childList: true, subtree: true, characterData: true });
})();`;

jest.setTimeout(60_000);

const said = (page: Page) => page.evaluate(() => [...(window as unknown as { __said: string[] }).__said]);
const shown = (page: Page, selector = '.wr-message') => page.locator(selector).textContent();

describe('the operator’s message on the waiting page', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  let origin: TestOrigin;
  const visitors: Visitor[] = [];

  const operator = async (method: 'PUT' | 'DELETE', body?: unknown, room?: string) => {
    const response = await fetch(server.at(`/admin/message${room ? `?room=${room}` : ''}`), {
      method,
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
  };

  const visit = async (locale: string, where = '/checkout') => {
    const visitor = await openVisitor(browser, server.url, { locale });
    visitors.push(visitor);
    await visitor.context.addInitScript(RECORD);
    await visitor.page.goto(server.at(where));
    await visitor.page.locator('.wr-waiting .wr-position strong').waitFor({ timeout: 15_000 });
    return visitor;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    origin = await startTestOrigin();
  });
  beforeEach(async () => {
    server = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(1, '/checkout');
    await server.fill(1, '/tickets');
  }, 30_000);
  afterEach(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await server?.close();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('should show a waiting page the message within a second, in its language, announced once; and clear it', async () => {
    const french = await visit('fr-FR');
    const german = await visit('de-DE');
    // Connected and listening on the line's channel: the page has sent queue_request by then.
    await french.page.waitForTimeout(1500);

    const before = Date.now();
    await operator('PUT', { text: 'Doors open at 10 & we restock: 5 < 6.', texts: { en: 'Doors open at 10.', fr: 'Ouverture à 10 h.' } });
    await french.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent?.includes('Ouverture à 10 h.'), undefined, { timeout: 5000 });
    const took = Date.now() - before;

    expect(took).toBeLessThan(1000);
    expect(await shown(french.page)).toBe('Message du site Ouverture à 10 h.');
    // No text for German: the room's language (English), not the text for any language.
    await german.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent?.includes('Doors open at 10.'), undefined, { timeout: 1000 });
    expect(await shown(german.page)).toBe('Nachricht der Website Doors open at 10.');
    // A text node: nothing in the region but the label's element.
    expect(await french.page.locator('.wr-message *').evaluateAll((nodes) => nodes.map((node) => node.tagName))).toEqual(['P', 'STRONG']);
    // Past a poll (every 5 s), whose answer carries the same message: said once.
    await french.page.waitForTimeout(6000);
    expect(await said(french.page)).toEqual(['Message du site Ouverture à 10 h.']);
    expect(await violations(french.page)).toEqual([]);

    await operator('PUT', { text: 'Plain text <3 & "quotes"' });
    await german.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent?.includes('<3'), undefined, { timeout: 1000 });
    expect(await shown(german.page)).toBe('Nachricht der Website Plain text <3 & "quotes"');

    await operator('DELETE');
    await french.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent === '', undefined, { timeout: 1000 });
    expect(await said(french.page)).toEqual(['Message du site Ouverture à 10 h.', 'Message du site Plain text <3 & "quotes"', '']);
    expect(await french.position()).toBe(1);
  });

  it('should show a page opened later the message at once, and in a room’s own page where its template puts it', async () => {
    await operator('PUT', { texts: { en: 'Sold out at noon.', ja: '正午に完売します。' } });
    await operator('PUT', { text: 'Welcome to the shop.' }, SHOP.name);

    const later = await visit('ja-JP');
    // Written by the config: no push was needed (none was made since the page opened).
    expect(await shown(later.page)).toBe('サイトからのお知らせ 正午に完売します。');

    const shop = await visit('en-GB', '/tickets');
    const slot = '[data-waiting-room-block="message"] .wr-message';
    await shop.page.locator(`${slot} p`).waitFor({ timeout: 1000 });
    expect(await shown(shop.page, slot)).toBe('Message from the site Welcome to the shop.');
    expect(await violations(shop.page)).toEqual([]);

    await operator('DELETE', undefined, SHOP.name);
    await shop.page.waitForFunction((selector) => document.querySelector(selector)?.textContent === '', slot, { timeout: 1000 });
    // The other room's message stays.
    expect(await shown(later.page)).toBe('サイトからのお知らせ 正午に完売します。');
  });
});
