import type { Browser, Page } from 'playwright-core';
import { violations } from '../support/axe';
import { launchBrowser } from '../support/browser';
import { closedPort } from '../support/closed-port';
import { openVisitor, type Visitor, type VisitorOptions } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/**
 * Nobody left out: every state of the waiting page (loading, waiting, a lost place, an error
 * page), in English and in Arabic (right to left), checked by axe-core in Chromium; then reflow at
 * 320 px and 200 % zoom, the keyboard, and reduced motion. The waiting page in every language of
 * the catalogue is checked by axe-core where its texts are (languages.spec.ts), on the same loads.
 */

/** A phone 320 CSS pixels wide (WCAG 1.4.10's reflow width). */
const NARROW = { viewport: { width: 320, height: 640 } };
/** A 1280×720 window zoomed to 200 %: 640×360 CSS pixels. */
const ZOOMED = { viewport: { width: 640, height: 360 }, deviceScaleFactor: 2 };

/** True when the page scrolls sideways. */
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** The controls the keyboard reaches, in order, each with whether it shows its focus (an outline of 2 px or more). */
async function tabThrough(page: Page): Promise<Array<{ control: string; shown: boolean }>> {
  const reached: Array<{ control: string; shown: boolean }> = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return null;
      const style = getComputedStyle(element);
      const label = element.tagName == 'SELECT' ? `select ${(element as HTMLSelectElement).value}` : `${element.tagName.toLowerCase()} ${element.textContent}`;
      return { control: label, shown: style.outlineStyle != 'none' && parseFloat(style.outlineWidth) >= 2 };
    });
    if (!focused || reached.some((seen) => seen.control === focused.control)) break;
    reached.push(focused);
  }
  return reached;
}

describe('accessibility of the waiting page', () => {
  let browser: Browser;
  let waiting: WaitingRoomServer;
  let loading: WaitingRoomServer;
  let losing: WaitingRoomServer;
  let realtimePort: number;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    waiting = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await waiting.fill(1);
    // The loading block stays while the realtime server cannot be reached.
    realtimePort = await closedPort();
    loading = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PUSHER_CLIENT_PORT: String(realtimePort) });
    await loading.fill(1);
    // A place silent for 2 s is dropped, and the page polls every 4 s: its next poll finds the place lost.
    losing = await startWaitingRoom({
      ACTIVE_LIMIT: '1',
      RELEASE_PER_MINUTE: '0',
      AWAY_SECONDS: '2',
      PAGE_TIMINGS: JSON.stringify({ anonymousPoll: 4_000, poll: 60_000 }),
    });
    await losing.fill(1);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([waiting, loading, losing].map((server) => server?.close()));
  });

  const visit = async (server: WaitingRoomServer, options: VisitorOptions) => {
    const visitor = await openVisitor(browser, server.url, { colorScheme: 'light', ...options });
    visitors.push(visitor);
    return visitor;
  };

  describe.each([
    ['English', 'en-US', 'en', 'ltr'],
    ['Arabic', 'ar-EG', 'ar', 'rtl'],
  ])('in %s', (_name, browserLocale, locale, dir) => {
    it('should have no violation while loading, and no motion for a visitor who asks for none', async () => {
      const visitor = await visit(loading, { ...NARROW, locale: browserLocale, reducedMotion: 'reduce', alsoAllowed: [`http://127.0.0.1:${realtimePort}`] });
      // The first queue_info goes without the connection: left unanswered, the page stays loading.
      await visitor.page.route('**/queue/info/**', () => undefined);
      await visitor.page.goto(loading.at('/checkout?item=1'));
      await visitor.page.locator('.wr-loading').waitFor();
      await expect(visitor.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual([locale, dir]);
      await expect(violations(visitor.page)).resolves.toEqual([]);
      await expect(scrollsSideways(visitor.page)).resolves.toBe(false);
      await expect(visitor.page.evaluate(() => document.getAnimations().length)).resolves.toBe(0);
      await visitor.page.emulateMedia({ reducedMotion: 'no-preference' });
      await expect(visitor.page.evaluate(() => document.getAnimations().length)).resolves.toBeGreaterThan(0);
    }, 30_000);

    it('should have no violation while waiting, reflow at 320 px, and reach every control by keyboard, its focus shown', async () => {
      const visitor = await visit(waiting, { ...NARROW, locale: browserLocale });
      await visitor.page.goto(waiting.at('/checkout?item=2'));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await visitor.page.locator('select').waitFor();
      await expect(violations(visitor.page)).resolves.toEqual([]);
      await expect(scrollsSideways(visitor.page)).resolves.toBe(false);
      const reached = await tabThrough(visitor.page);
      // The notification button, "continue on another device", the code's field and its button, the language.
      const button = expect.stringMatching(/^button /);
      expect(reached.map((one) => one.control)).toEqual([button, button, 'input ', button, `select ${locale}`]);
      expect(reached.every((one) => one.shown)).toBe(true);
    }, 30_000);

    it('should stay usable at 200 % zoom: nothing scrolls sideways and every control can be reached', async () => {
      const visitor = await visit(waiting, { ...ZOOMED, locale: browserLocale });
      await visitor.page.goto(waiting.at('/checkout?item=3'));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await visitor.page.locator('select').waitFor();
      await expect(scrollsSideways(visitor.page)).resolves.toBe(false);
      const controls = await visitor.page.locator('button, input, select').all();
      expect(controls.length).toBe(5);
      for (const control of controls) {
        await control.scrollIntoViewIfNeeded();
        await expect(control.isVisible()).resolves.toBe(true);
      }
      await expect(visitor.page.evaluate(() => getComputedStyle(document.querySelector('.wr-position strong')!).overflow)).resolves.toBe('visible');
    }, 30_000);

    it('should have no violation once the place is lost, and offer the way back by keyboard', async () => {
      const visitor = await visit(losing, { ...NARROW, locale: browserLocale });
      await visitor.page.goto(losing.at('/'));
      // The shop's order form: a held POST, whose lost place offers the way back rather than rejoining.
      await visitor.page.click('form[action^="/checkout"] button[type="submit"]');
      await visitor.page.locator('.wr-lost').waitFor({ timeout: 20_000 });
      await expect(violations(visitor.page)).resolves.toEqual([]);
      await expect(scrollsSideways(visitor.page)).resolves.toBe(false);
      const reached = await tabThrough(visitor.page);
      expect(reached.map((one) => one.control.split(' ')[0])).toEqual(['button', 'a', 'select']);
      expect(reached.every((one) => one.shown)).toBe(true);
    }, 40_000);

    it('should have no violation on an error page', async () => {
      const visitor = await visit(waiting, { ...NARROW, locale: browserLocale });
      const answer = await visitor.page.goto(waiting.at('/queue/nothing-here'));
      expect(answer?.status()).toBe(404);
      await expect(visitor.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual([locale, dir]);
      await expect(violations(visitor.page)).resolves.toEqual([]);
      await expect(scrollsSideways(visitor.page)).resolves.toBe(false);
      const reached = await tabThrough(visitor.page);
      expect(reached.map((one) => one.control)).toEqual([expect.stringMatching(/^a /)]);
      expect(reached.every((one) => one.shown)).toBe(true);
    }, 30_000);
  });
});
