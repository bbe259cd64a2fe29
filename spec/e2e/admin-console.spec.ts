import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/**
 * The operator console in Chromium against the real server: sign in, watch the line change
 * without a reload, pause and release from the page. `WRITE_SCREENSHOTS=1` also writes the
 * picture of it in docs/operations.md, docs/screenshots/admin-console.png.
 */
const WRITE = process.env.WRITE_SCREENSHOTS === '1';
const DOCS = path.resolve(__dirname, '../../docs/screenshots');

describe('the operator console in a browser', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await server?.close();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The figure the console shows under `name` in the first room's panel. */
  const figure = (console: Page, name: string) => console.locator(`.ac-room [data-figure="${name}"]`).first();

  it('should sign in, show the line live, and pause and release from the page', async () => {
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await server.fill(1);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    const console = await context.newPage();
    const errors: string[] = [];
    console.on('pageerror', (error) => errors.push(error.message));
    await console.goto(server.at('/admin/'));

    // Signing in: the token typed into a password field, exchanged for an HttpOnly cookie.
    await console.getByLabel('Admin token').fill('not-the-token-of-24-characters');
    await console.getByRole('button', { name: 'Sign in' }).click();
    await expect(console.getByRole('alert').innerText()).resolves.toBe('This token is wrong.');
    await console.getByLabel('Admin token').fill(E2E_ADMIN_TOKEN);
    await console.getByRole('button', { name: 'Sign in' }).click();
    await console.getByText('Live', { exact: true }).waitFor({ timeout: 15_000 });
    await expect(figure(console, 'waiting').innerText()).resolves.toBe('0');
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'waiting_room_admin')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/admin' });
    await expect(console.evaluate(() => document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage))).resolves.not.toContain(
      E2E_ADMIN_TOKEN,
    );

    // A visitor joins the line: the console shows it without a reload.
    // A mark in this document: a reload would lose it.
    await console.evaluate(() => Object.assign(window, { sameDocument: true }));
    const ada = await openVisitor(browser, server.url, { locale: 'en-US' });
    visitors.push(ada);
    await ada.page.goto(server.at('/checkout?item=42'));
    await ada.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await console.waitForFunction(() => document.querySelector('.ac-room [data-figure="waiting"]')?.textContent === '1', undefined, { timeout: 10_000 });
    await expect(console.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).resolves.toBe(true);

    // Pause from the page: the server's release loop stops, and the console says so.
    await console.getByRole('button', { name: 'Pause releases' }).click();
    await console.getByRole('button', { name: 'Resume releases' }).waitFor({ timeout: 10_000 });
    expect(await server.stats()).toMatchObject({ paused: true });

    // Speak to those waiting from the page: Ada's page shows the message, then no more once cleared.
    await console.getByLabel(/^Plain text, every language/).fill('Back in five minutes.');
    await console.getByRole('button', { name: 'Show', exact: true }).click();
    await console.getByText('Message shown on every waiting page.').waitFor({ timeout: 10_000 });
    await ada.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent?.includes('Back in five minutes.'), undefined, { timeout: 5000 });
    await console.getByRole('button', { name: 'Clear', exact: true }).click();
    await console.getByText('Message cleared.').waitFor({ timeout: 10_000 });
    await ada.page.waitForFunction(() => document.querySelector('.wr-message')?.textContent === '', undefined, { timeout: 5000 });

    // Release one from the page: Ada's page replays her held request.
    await console.getByLabel('Visitors to release').fill('1');
    await console.getByRole('button', { name: 'Release', exact: true }).click();
    await console.getByText('1 visitor released.').waitFor({ timeout: 10_000 });
    await ada.arrivesAt(server.at('/checkout?item=42'), 15_000);
    expect(await server.stats()).toMatchObject({ waiting: 0, released: 1 });
    await console.waitForFunction(() => document.querySelector('.ac-room [data-figure="waiting"]')?.textContent === '0', undefined, { timeout: 10_000 });

    // Others arrive for the picture: the chart then shows the line growing.
    for (let i = 0; i < 6; i++) await fetch(server.at(`/checkout?item=${i}`));
    await console.waitForFunction(() => document.querySelector('.ac-room [data-figure="waiting"]')?.textContent === '6', undefined, { timeout: 10_000 });
    const outDir = WRITE ? DOCS : mkdtempSync(path.join(tmpdir(), 'waiting-room-console-'));
    const file = path.join(outDir, 'admin-console.png');
    try {
      await console.screenshot({ path: file, fullPage: true, animations: 'disabled' });
      expect(readFileSync(file).subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      if (!WRITE) rmSync(outDir, { recursive: true, force: true });
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
