import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { CATALOGUES } from '../../locales';
import { launchBrowser } from '../support/browser';
import { closedPort } from '../support/closed-port';
import { overflowing } from '../support/overflow';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/**
 * Screenshots of the waiting page for the README and docs/page.md, taken from the real page on the real server.
 * Every run takes and checks them; `WRITE_SCREENSHOTS=1` also writes them to docs/screenshots:
 *
 *   WRITE_SCREENSHOTS=1 npx jest spec/e2e -t screenshots
 */
const WRITE = process.env.WRITE_SCREENSHOTS === '1';
const DOCS = path.resolve(__dirname, '../../docs/screenshots');

const SIZES: Record<'desktop' | 'phone', BrowserContextOptions> = {
  desktop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

/** A fixed clock for the page, so the "last updated" time is the same in every screenshot. */
const FIXED_TIME = new Date('2026-01-15T10:30:00');

/** Visitors already in line ahead of the one photographed, so the position is not just 1. */
const AHEAD = 11;

/** Width and height of a PNG, read from its header. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('screenshots of the waiting page', () => {
  let browser: Browser;
  let outDir: string;
  const servers: WaitingRoomServer[] = [];
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    outDir = WRITE ? DOCS : mkdtempSync(path.join(tmpdir(), 'waiting-room-screenshots-'));
    mkdirSync(outDir, { recursive: true });
  });

  afterEach(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  afterAll(async () => {
    await browser?.close();
    if (!WRITE && outDir) rmSync(outDir, { recursive: true, force: true });
  });

  /** A full room with `AHEAD` visitors already waiting (each a client with its own cookie). */
  async function busyServer(env: Record<string, string> = {}): Promise<WaitingRoomServer> {
    const server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ...env });
    servers.push(server);
    await server.fill(1);
    for (let i = 0; i < AHEAD; i++) await fetch(server.at(`/checkout?item=${i}`));
    expect(await server.stats()).toMatchObject({ waiting: AHEAD });
    return server;
  }

  test.each(Object.keys(SIZES) as Array<keyof typeof SIZES>)(
    'the waiting state at %s width',
    async (size) => {
      const server = await busyServer();
      const visitor = await openVisitor(browser, server.url, { ...SIZES[size], colorScheme: 'light', locale: 'en-US' });
      visitors.push(visitor);
      await visitor.page.clock.setFixedTime(FIXED_TIME);
      await visitor.page.goto(server.at('/checkout?item=42'));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await visitor.page.locator('select').waitFor();
      await expect(visitor.position()).resolves.toBe(AHEAD + 1);
      await expect(visitor.page.locator('.wr-estimated').innerText()).resolves.toMatch(/about \d+ minutes/);

      const file = path.join(outDir, `waiting-${size}.png`);
      await visitor.page.screenshot({ path: file, animations: 'disabled' });
      const { width, height } = SIZES[size].viewport!;
      const scale = SIZES[size].deviceScaleFactor!;
      expect(pngSize(file)).toEqual({ width: width * scale, height: height * scale });
    },
    30_000,
  );

  /**
   * On a phone: the four languages written right to left, Japanese, and the language whose
   * waiting block is the tallest at phone width: Tamil (464 px at 390 px wide, measured over every
   * language of the catalogue; German and French next, 443 px). Nothing may be cut or overflow.
   */
  test.each([
    ['Arabic', 'ar-EG', 'ar'],
    ['Persian', 'fa-IR', 'fa'],
    ['Hebrew', 'he-IL', 'he'],
    ['Urdu', 'ur-PK', 'ur'],
    ['Japanese', 'ja-JP', 'ja'],
    ['Tamil', 'ta-IN', 'ta'],
  ] as const)(
    'the waiting state on a phone in %s',
    async (_name, locale, file) => {
      const server = await busyServer();
      const visitor = await openVisitor(browser, server.url, { ...SIZES.phone, colorScheme: 'light', locale });
      visitors.push(visitor);
      await visitor.page.clock.setFixedTime(FIXED_TIME);
      await visitor.page.goto(server.at('/checkout?item=42'));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await visitor.page.locator('select').waitFor();
      const { dir, messages } = CATALOGUES[file];
      await expect(visitor.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual([file, dir]);
      await expect(visitor.page.locator('h1').innerText()).resolves.toBe(messages['page.heading']);
      // Persian and Urdu of India write their own digits: the position as the language writes it.
      await expect(visitor.page.locator('.wr-position strong').innerText()).resolves.toBe(new Intl.NumberFormat(file).format(AHEAD + 1));

      const path_ = path.join(outDir, `waiting-phone-${file}.png`);
      await visitor.page.screenshot({ path: path_, animations: 'disabled', fullPage: true });
      await expect(overflowing(visitor.page)).resolves.toEqual([]);
      expect(pngSize(path_).width).toBe(SIZES.phone.viewport!.width * 2);
      // The check sees what would overflow: a word wider than the phone, which nothing may break.
      await visitor.page.evaluate(() => {
        const wide = document.createElement('p');
        wide.style.whiteSpace = 'nowrap';
        wide.textContent = 'x'.repeat(200);
        document.querySelector('.wr-waiting')?.append(wide);
      });
      await expect(overflowing(visitor.page)).resolves.not.toEqual([]);
    },
    30_000,
  );

  test.each(Object.keys(SIZES) as Array<keyof typeof SIZES>)(
    'the loading state at %s width',
    async (size) => {
      // The loading block stays while the realtime connection is being made: a port where nothing
      // listens keeps it there for the few seconds before pusher-js calls the connection unavailable.
      const realtimePort = await closedPort();
      const server = await busyServer({ PUSHER_CLIENT_PORT: String(realtimePort) });
      const visitor = await openVisitor(browser, server.url, {
        ...SIZES[size],
        colorScheme: 'light',
        locale: 'en-US',
        alsoAllowed: [`http://127.0.0.1:${realtimePort}`],
      });
      visitors.push(visitor);
      // The first queue_info goes without the connection: left unanswered, the page stays loading.
      await visitor.page.route('**/queue/info/**', () => undefined);
      await visitor.page.goto(server.at('/checkout?item=42'));
      await visitor.page.locator('.wr-loading').waitFor();

      const file = path.join(outDir, `loading-${size}.png`);
      await visitor.page.screenshot({ path: file, animations: 'disabled' });
      // Still loading, with no notice yet, when the picture was taken.
      await expect(visitor.page.locator('.wr-loading').isVisible()).resolves.toBe(true);
      await expect(visitor.page.locator('.wr-notice').count()).resolves.toBe(0);
      const { width, height } = SIZES[size].viewport!;
      const scale = SIZES[size].deviceScaleFactor!;
      expect(pngSize(file)).toEqual({ width: width * scale, height: height * scale });
    },
    30_000,
  );
});
