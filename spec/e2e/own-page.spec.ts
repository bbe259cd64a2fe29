import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, ConsoleMessage } from 'playwright-core';
import { violations } from '../support/axe';
import { launchBrowser } from '../support/browser';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

/** The documented example: its template and its ROOMS entry, with the words in English and French. */
const EXAMPLE = path.resolve(__dirname, '../../docs/examples/waiting-page.html');
const [SHOP] = JSON.parse(readFileSync(path.resolve(__dirname, '../../docs/examples/waiting-page.rooms.json'), 'utf8')) as [
  { name: string; page: { template: string; words: Record<'en' | 'fr', Record<string, string>> } },
];
const ROOMS = JSON.stringify([
  { ...SHOP, page: { ...SHOP.page, template: EXAMPLE }, activeLimit: 1 },
  { name: 'tickets', protect: ['/tickets'], activeLimit: 1 },
]);

/** What Chromium says in the console when a policy blocks something. */
const VIOLATION = /Content Security Policy|Refused to (load|execute|apply|connect|create|frame)/i;

describe("a room with the operator's own waiting page, beside a room with the default page", () => {
  let browser: Browser;
  let origin: TestOrigin;
  let server: WaitingRoomServer;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ROOMS, RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(1, '/checkout');
    await server.fill(1, '/tickets');
  }, 60_000);
  afterAll(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    await server?.close();
    await origin?.close();
    await browser?.close();
  }, 30_000);

  const visit = async (locale: string) => {
    const visitor = await openVisitor(browser, server.url, { locale });
    visitors.push(visitor);
    return visitor;
  };

  test("shows the operator's words and styles, and the position and estimate in their places, in the visitor's language; the release replays the held request", async () => {
    const visitor = await visit('fr-FR');
    const { page } = visitor;
    const messages: string[] = [];
    const listen = (message: ConsoleMessage) => messages.push(message.text());
    page.on('console', listen);
    page.on('pageerror', (error) => messages.push(`page error: ${error.message}`));

    await page.goto(server.at('/checkout/7?size=m'));
    const position = page.locator('[data-waiting-room-block="position"] .wr-waiting .wr-position strong');
    await position.waitFor({ timeout: 15_000 });
    expect(await visitor.position()).toBe(1);
    await expect(position.textContent()).resolves.toBe('1');
    await expect(page.locator('[data-waiting-room-block="estimate"] .wr-estimated').textContent()).resolves.toMatch(/^Attente estimée/);
    await expect(page.locator('.shop-headline').textContent()).resolves.toBe(SHOP.page.words.fr.headline);
    await expect(page.locator('.shop-footer').textContent()).resolves.toBe(SHOP.page.words.fr.footer);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('fr');
    // The operator's <style> applies (allowed by its hash): the brand colour, and its own font.
    await expect(page.locator('.shop-header').evaluate((header) => getComputedStyle(header).backgroundColor)).resolves.toBe('rgb(122, 47, 240)');
    await expect(
      page
        .locator('.shop-grid .wr-block')
        .first()
        .evaluate((block) => getComputedStyle(block).borderTopColor),
    ).resolves.toBe('rgb(122, 47, 240)');
    // The loading block is gone from its place (the server's static one too), the live region in the root.
    await expect(page.locator('.wr-loading').count()).resolves.toBe(0);
    await expect(page.locator('#waiting-room .wr-sr[aria-live="polite"]').count()).resolves.toBe(1);
    // The language picker, in its own place.
    await page.locator('[data-waiting-room-block="language"] select').waitFor({ timeout: 15_000 });
    // Nothing axe-core finds, the example's markup around the blocks included.
    await expect(violations(page)).resolves.toEqual([]);

    const response = await fetch(server.at('/admin/release'), {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 1, room: SHOP.name }),
    });
    expect(response.status).toBe(200);
    await visitor.arrivesAt(server.at('/checkout/7?size=m'), 15_000);
    // The origin's answer to the replayed request, its query kept.
    await page.getByText('You are through: a GET request.').waitFor({ timeout: 15_000 });
    await expect(page.locator('td').first().textContent()).resolves.toBe('m');

    expect(messages.filter((text) => VIOLATION.test(text) || text.startsWith('page error'))).toEqual([]);
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);

  test("shows the operator's English words to a visitor who asks for English, and French ones once they pick French", async () => {
    const visitor = await visit('en-US');
    await visitor.page.goto(server.at('/checkout/8'));
    await visitor.page.locator('[data-waiting-room-block="position"] .wr-position strong').waitFor({ timeout: 15_000 });
    await expect(visitor.page.locator('.shop-headline').textContent()).resolves.toBe(SHOP.page.words.en.headline);
    await expect(visitor.page.title()).resolves.toMatch(/Waiting room/);

    // A switch of language changes the operator's words as well as the blocks, in place.
    await visitor.page.locator('[data-waiting-room-block="language"] select').selectOption('fr');
    await visitor.page.locator('.shop-headline', { hasText: SHOP.page.words.fr.headline }).waitFor({ timeout: 15_000 });
    await expect(visitor.page.locator('[data-waiting-room-block="estimate"] .wr-estimated').textContent()).resolves.toMatch(/^Attente estimée/);
    expect(visitor.page.url()).toBe(server.at('/checkout/8'));
  }, 60_000);

  test('keeps the default page in the other room', async () => {
    const visitor = await visit('fr-FR');
    await visitor.page.goto(server.at('/tickets/1'));
    await visitor.page.locator('main#waiting-room.wr .wr-waiting .wr-position strong').waitFor({ timeout: 15_000 });
    expect(await visitor.position()).toBe(1);
    await expect(visitor.page.locator('[data-waiting-room-block]').count()).resolves.toBe(0);
    await expect(visitor.page.locator('.shop-headline').count()).resolves.toBe(0);
  }, 60_000);
});
